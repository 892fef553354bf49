"""Service test setup: see tests/conftest.py."""
