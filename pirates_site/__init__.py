"""Project package: settings, URLs, WSGI/ASGI and the Celery application."""

from pirates_site.celery import app as celery_app

__all__ = ("celery_app",)
