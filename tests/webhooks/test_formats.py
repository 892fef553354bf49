"""Discord and Slack messages as a receiver gets them: whose turn it is by display name, a
mention where the hook maps the name to a handle, a link to the table, and nothing a player
wrote can ping a channel or forge a link."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from games import services
from games.models import PlayerProfile, Webhook
from games.services import webhooks
from tests.services.support import play_to_end, seat_user, started_game
from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db


def named(users: list[User]) -> None:
    for user, name in zip(users, ["Anne *Bonny*", "Calico_Jack", "Mary <Read>"], strict=True):
        PlayerProfile.objects.update_or_create(user=user, defaults={"display_name": name})


def test_discord_and_slack_turn_notices_name_mention_and_link(
    users: list[User], receiver: Receiver, move: Any
) -> None:
    named(users)
    game = started_game(users)
    names = {"Anne *Bonny*": ("<@80351110224678912>", "<@U024BE7LH>"),
             "Calico_Jack": ("<@80351110224678913>", "<@U024BE7LJ>"),
             "Mary <Read>": ("<@80351110224678914>", "<@U024BE7LK>")}
    for fmt, which in (("discord", 0), ("slack", 1)):
        webhooks.webhook_create(
            game_id=game.pk, user=users[0], url=f"{receiver.url}{fmt}", format=fmt, events=["turn"],
            mentions={name: handles[which] for name, handles in names.items()},
        )
    for seed in range(4):
        receiver.requests.clear()
        move(game, seed)
        game.refresh_from_db()
        (name,) = [services.display_name_for(seat_user(game, p)) for p in game.to_act]
        discord, slack = receiver.bodies()
        url = f"https://pirates.example/games/{game.pk}/"
        escaped = name.replace("*", "\\*").replace("_", "\\_").replace("<", "\\<").replace(">", "\\>")
        assert discord["content"] == (
            f"**Turn** · [Game #{game.pk}](<{url}>): Waiting for {escaped} {names[name][0]}"
        )
        assert discord["allowed_mentions"] == {"parse": [], "users": [names[name][0].strip("<@>")]}
        slack_name = name.replace("<", "&lt;").replace(">", "&gt;")
        expected = f"*Turn* · <{url}|Game #{game.pk}>: Waiting for {slack_name} {names[name][1]}"
        assert slack == {"text": expected}


def test_chat_cannot_ping_everyone_or_forge_a_link(
    users: list[User], receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    game = started_game(users)
    for fmt in ("discord", "slack"):
        webhooks.webhook_create(game_id=game.pk, user=users[0], url=f"{receiver.url}{fmt}", format=fmt,
                                events=["chat"])
    lines = ["@everyone <@&123> look", "<https://evil.example|your turn> <!channel>", "[click](https://evil.example)"]
    for text in lines:
        with django_capture_on_commit_callbacks(execute=True):
            services.chat_post(game=game, user=users[1], text=text)
    by_format: dict[str, list[Any]] = {"discord": [], "slack": []}
    for request in receiver.requests:
        by_format[request.path.rsplit("/", 1)[1]].append(request.json)
    assert len(by_format["discord"]) == len(by_format["slack"]) == len(lines)
    for body in by_format["discord"]:
        assert body["allowed_mentions"] == {"parse": [], "users": []}
        chat = body["content"].split(": ", 1)[1]
        assert "](" not in chat and "<@" not in chat and "@everyone" not in chat.replace("\\@", "")
    for body in by_format["slack"]:
        chat = body["text"].split(": ", 1)[1]
        assert "<" not in chat and ">" not in chat


def test_every_format_is_one_json_document(users: list[User]) -> None:
    game = started_game(users)
    notice = webhooks_notice(game)
    for fmt in Webhook.Format.values:
        hook = Webhook(game=game, created_by=users[0], url="https://h.example/x", format=fmt,
                       events=list(Webhook.EVENTS), secret="s" * 64)
        body = delivery_body(hook, game, notice)
        assert body.startswith(b"{") and body.endswith(b"}")


def test_game_over_names_the_winner_once_headed_game_over(users: list[User]) -> None:
    named(users)
    game = play_to_end(started_game(users), seed=2)
    from games import webhooks as delivery

    (notice,) = [n for n in delivery.position_notices(game, game.seq, game.seq) if n.event == "game_finished"]
    winners = [row for row in notice.data["scores"] if row["winner"]]
    assert winners and notice.text.startswith(winners[0]["player"]) and " won. Scores: " in notice.text
    for fmt in ("discord", "slack"):
        hook = Webhook(game=game, created_by=users[0], url="https://h.example/x", format=fmt,
                       events=list(Webhook.EVENTS), secret="s" * 64)
        document = json.loads(delivery_body(hook, game, notice))
        line = document.get("content") or document["text"]
        assert line.count("Game over") == 1 and line.split(" · ")[0] in ("**Game over**", "*Game over*")


def webhooks_notice(game: Any) -> Any:
    from games import webhooks as delivery

    return delivery.position_notices(game, game.seq, 0)[0]


def delivery_body(hook: Webhook, game: Any, notice: Any) -> bytes:
    from games import webhooks as delivery

    return delivery.body(hook, game, notice, "00000000-0000-0000-0000-000000000000")
