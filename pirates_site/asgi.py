"""ASGI entry point."""

from django.core.asgi import get_asgi_application

from pirates_site.startup import load_settings_or_exit

load_settings_or_exit()
application = get_asgi_application()
