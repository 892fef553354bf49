"""/healthz reports the database and the broker; 200 only when both answer."""

from __future__ import annotations

import pytest
from django.test import Client

from pirates_site.celery import app as celery_app


@pytest.mark.django_db
def test_healthz_ok_on_embedded_defaults(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True
    # No server names, drivers or transports for the public.
    assert body == {"status": "ok", "database": {"ok": True}, "broker": {"ok": True}}


@pytest.mark.django_db
def test_healthz_503_when_broker_unreachable(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(celery_app.conf, "broker_url", "redis://127.0.0.1:1/0")
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["broker"] == {"ok": False}
    assert body["database"]["ok"] is True
    assert "Error" not in response.content.decode() and "redis" not in response.content.decode()


@pytest.mark.django_db
def test_healthz_503_when_database_fails(client: Client, monkeypatch: pytest.MonkeyPatch) -> None:
    from games import health

    def broken() -> tuple[bool, str]:
        return False, "OperationalError: connection refused"

    monkeypatch.setattr("games.views.site.database_status", broken)
    assert health.database_status()[0] is True  # the real check still answers
    response = client.get("/healthz")
    assert response.status_code == 503
    # Anyone can ask, so the answer carries no internal error text.
    assert response.json()["database"] == {"ok": False}
    assert "OperationalError" not in response.content.decode()


@pytest.mark.django_db
def test_home_page_answers(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert b"Pirates by Mail" in response.content
