"""Every page carries a Content-Security-Policy (django-csp) that allows no
inline script, no eval and no inline style, and the templates give it nothing to refuse. The
browser test (tests/web/test_browser.py) checks the pages run under it without a violation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.mail import EmailMultiAlternatives, get_connection
from django.test import Client
from pytest_django import Settings

from tests.realservers import ROOT


def directives(policy: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for part in policy.split(";"):
        name, _, value = part.strip().partition(" ")
        if name:
            found[name] = value.strip()
    return found


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/rules/pirates/", "/api/docs/", "/api/games/"])
def test_pages_carry_a_strict_policy(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    policy = directives(response["Content-Security-Policy"])
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["base-uri"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"


@pytest.mark.django_db
def test_the_outbox_frame_has_a_sandboxed_policy_of_its_own(
    client: Client, settings: Settings, tmp_path: Path
) -> None:
    settings.EMAIL_OUTBOX_DIR = tmp_path
    settings.DEV_OUTBOX_PAGE = True
    message = EmailMultiAlternatives(
        "Hi", "Hi", to=["a@example.test"], connection=get_connection("games.mail.OutboxEmailBackend")
    )
    message.attach_alternative('<p style="color:red">Hi</p><script>alert(1)</script>', "text/html")
    message.send()
    (eml,) = tmp_path.glob("*.eml")
    policy = directives(client.get(f"/dev/outbox/{eml.name}/html/")["Content-Security-Policy"])
    assert set(policy) == {"sandbox", "default-src", "style-src", "img-src", "frame-ancestors"}
    assert policy["sandbox"] == "" and policy["default-src"] == "'none'"  # no script at all
    assert policy["frame-ancestors"] == "'self'"


PAGE_TEMPLATES = [
    path
    for folder in (ROOT / "templates", ROOT / "games")
    for path in sorted(folder.rglob("*.html"))
    if "emails" not in path.parts  # emails are read in mail clients, which need inline styles
]


@pytest.mark.parametrize("template", PAGE_TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_templates_need_no_inline_code_or_style(template: Path) -> None:
    text = template.read_text("utf-8")
    for tag in re.findall(r"<script\b[^>]*>", text):
        assert "src=" in tag, f"inline script: {tag}"
    assert not re.search(r"<style\b", text), "inline <style>: move it to a stylesheet"
    assert not re.search(r"\sstyle\s*=", text), "style attribute: use a class"
    assert not re.search(r"\son[a-z]+\s*=", text), "inline event handler: use a script file"
    assert not re.search(r"\shx-on", text), "hx-on runs inline code"
    # htmx evaluates [filters] in hx-trigger as code, which script-src 'self' forbids.
    for trigger in re.findall(r'hx-trigger="([^"]*)"', text):
        assert "[" not in trigger, f"hx-trigger filter: {trigger}"
