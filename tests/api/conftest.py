"""API test fixtures: players with tokens, a client per player."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.services.support import make_users

ClientFor = Callable[[User], APIClient]


@pytest.fixture
def users(db: None) -> list[User]:
    return make_users(3)


@pytest.fixture
def client_for(db: None) -> ClientFor:
    def make(user: User) -> APIClient:
        client = APIClient()
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return make


@pytest.fixture
def anonymous() -> APIClient:
    return APIClient()
