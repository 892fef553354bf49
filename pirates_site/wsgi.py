"""WSGI entry point (gunicorn pirates_site.wsgi)."""

from django.core.wsgi import get_wsgi_application

from pirates_site.startup import load_settings_or_exit

load_settings_or_exit()
application = get_wsgi_application()


def _prepare_task_publishing() -> None:
    """Import the tasks and build Celery's producer pool as each worker starts, not in the
    first move it serves: that is ~0.15 s of imports (kombu's transport) on a small machine.
    Nothing connects to the broker here, so a broker that is down does not stop the web."""
    from games import tasks  # noqa: F401
    from pirates_site.celery import app

    app.producer_pool  # noqa: B018


_prepare_task_publishing()
