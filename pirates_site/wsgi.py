"""WSGI entry point (gunicorn pirates_site.wsgi)."""

from django.core.wsgi import get_wsgi_application

from pirates_site.startup import load_settings_or_exit

load_settings_or_exit()
application = get_wsgi_application()
