"""The example client (examples/api_client.py), which knows nothing but HTTP and the documented
endpoints, plays whole games of every rule set against a real server: two client processes
take two seats (in Libertalia they pick at the same time), bots the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from games.models import ChatMessage, Event, Game
from tests.services.support import PASSWORD, make_users

# Two client processes on a threaded server write at once: a real database's row locks.
pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "examples" / "api_client.py"
RULE_SETS = {"pirates": 3, "pirates-classic": 3, "libertalia": 2, "captain-lucky": 3}


def client_process(url: str, user: User, seed: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CLIENT), "--url", url, "--username", user.get_username(), "--password", PASSWORD,
         "--seed", str(seed), "--poll", "0.2", "--max-seconds", "900", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )


@pytest.mark.parametrize("rules_id", sorted(RULE_SETS))
def test_the_example_client_plays_each_rule_set_to_the_end(
    rules_id: str, live_server: Any, settings: Any
) -> None:
    settings.BOT_MOVE_DELAY_SECONDS = 0  # eager tasks: a bot moves inside the request before it
    players = RULE_SETS[rules_id]
    users = make_users(2, prefix=rules_id.replace("-", ""))
    game = services.game_create(
        creator=users[0], rules_id=rules_id, players=players, bot_seats=players - 2, title="Client game"
    )
    services.seat_join(game_id=game.pk, user=users[1])
    game = services.game_start(game_id=game.pk, by=users[0])
    # One finds its game in its list, the other is told which; one plays randomly, one takes
    # the first move offered.
    processes = [
        client_process(live_server.url, users[0], 1, "--policy", "random", "--say", "Fair winds!"),
        client_process(live_server.url, users[1], 2, "--policy", "first", "--game", str(game.pk)),
    ]
    summaries = []
    for process in processes:
        out, err = process.communicate(timeout=1200)
        assert process.returncode == 0, err[-2000:]
        summaries.append(json.loads(out.strip().splitlines()[-1]))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result is not None
    for summary, user in zip(summaries, users, strict=True):
        assert summary["game"] == game.pk and summary["status"] == "finished"
        assert summary["result"] == game.result
        # Every move it reports is an event its seat made as that user.
        made = Event.objects.filter(game=game, kind=Event.Kind.ACTION, actor=f"user:{user.pk}").count()
        assert summary["moves_played"] == made > 0
    assert list(ChatMessage.objects.filter(game=game).values_list("text", flat=True)) == ["Fair winds!"]
