"""The REST API (Django REST framework): thin views over ``games.services`` and ``games.selectors``."""
