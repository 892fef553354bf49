"""Three players play a whole game through the HTTP API, each choosing from the legal actions
the API offers them; the result is the engine's, and the exported log replays to it."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from engine import gamelog
from tests.api.conftest import ClientFor

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def test_three_players_play_to_the_end_over_http(
    users: list[User], client_for: ClientFor, anonymous: APIClient, tmp_path: Path
) -> None:
    clients = [client_for(user) for user in users]
    game_id = clients[0].post("/api/games/", {"players": 3, "title": "Full game"}, format="json").json()["id"]
    for client in clients[1:]:
        assert client.post(f"/api/games/{game_id}/join/").status_code == 200
    started = clients[0].post(f"/api/games/{game_id}/start/").json()
    seat_of = {c.get(f"/api/games/{game_id}/").json()["your_seat"]: c for c in clients}
    assert sorted(seat_of) == [0, 1, 2]
    sha = started["seed_sha256"]

    rng = random.Random(2021)
    detail = started
    moves = 0
    while detail["status"] == "active":
        assert detail["seed"] is None
        mover = seat_of[detail["to_act"][0]]
        mine = mover.get(f"/api/games/{game_id}/").json()
        assert mine["legal_actions"], mine
        for seat, client in seat_of.items():
            if seat != mine["to_act"][0] and moves % 25 == 0:
                assert client.get(f"/api/games/{game_id}/").json()["legal_actions"] == []
        response = mover.post(
            f"/api/games/{game_id}/actions/",
            {
                "action": rng.choice(mine["legal_actions"]),
                "expected_seq": mine["seq"],
                "idempotency_key": f"move-{moves}",
            },
            format="json",
        )
        assert response.status_code == 201, response.json()
        assert response.json()["seq"] == mine["seq"] + 1
        detail = response.json()["game"]
        moves += 1
        assert moves < 1500

    assert detail["status"] == "finished"
    result = detail["result"]
    assert set(result) >= {"scores", "winners"}
    # Fair shuffle: the seed is revealed at the end and hashes to what was shown from the start.
    final = anonymous.get(f"/api/games/{game_id}/").json()
    assert final["seed"] and hashlib.sha256(final["seed"].encode()).hexdigest() == sha == final["seed_sha256"]

    export = anonymous.get(f"/api/games/{game_id}/export/")
    assert export.status_code == 200 and export["Content-Type"].startswith("application/x-ndjson")
    text = export.content.decode()
    log = gamelog.parse(text)
    assert log.header.seed == final["seed"]
    assert log.result == {"scores": result["scores"], "winners": result["winners"]}
    assert gamelog.check_result(log) == log.result
    assert [json.loads(line)["kind"] for line in text.splitlines()][-1] == "result"

    path = tmp_path / "game.jsonl"
    path.write_text(text, "utf-8")
    cli = subprocess.run(
        [sys.executable, "-m", "engine", "replay", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stderr
    assert "The recorded result matches the replay." in cli.stdout

    events = anonymous.get(f"/api/games/{game_id}/events/").json()
    assert [e["seq"] for e in events] == list(range(1, final["seq"] + 1))
    assert events[0]["seed"] == final["seed"]
    last = anonymous.get(f"/api/games/{game_id}/replay/{final['seq']}/").json()
    assert last["seat"] is None and last["view"]["result"] == result


def test_fixed_deal_deck_is_hidden_until_the_end(users: list[User], client_for: ClientFor) -> None:
    from engine import get_rules

    rules = get_rules("pirates")
    deck = list(
        reversed(
            rules.dump(rules.new_game(3, "any"))["deck"] + rules.dump(rules.new_game(3, "any"))["display"]
        )
    )
    host = client_for(users[0])
    response = host.post(
        "/api/games/",
        {"players": 3, "options": {"deck": deck, "first_seat": 0}, "public": False},
        format="json",
    )
    assert response.status_code == 201, response.json()
    detail = host.get(f"/api/games/{response.json()['id']}/").json()
    assert detail["fixed_deal"] is True and detail["fixed_deal_options"] == ["deck", "first_seat"]
    # Both are declared secret by the rule set (OptionInfo.secret): only their names show.
    assert detail["options"] == {}
