"""Liveness of the pieces the service needs: the database and the Celery broker."""

from __future__ import annotations

from django.db import connection

from pirates_site.celery import app as celery_app


def database_status() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return False, f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    return True, connection.vendor


def broker_status() -> tuple[bool, str]:
    try:
        with celery_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=3)
            transport = conn.transport_cls
    except Exception as exc:
        return False, f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    return True, str(transport)
