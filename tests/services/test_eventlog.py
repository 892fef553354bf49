"""One shape for a log line (platform issue): what each viewer reads of an event whose rule set
hid part of it, and that the event row keeps everything for replay."""

from __future__ import annotations

from typing import Any

from engine.base import Step
from games.eventlog import Viewer, action_for, payload, shape, text_for
from games.models import Event

PICK = {"type": "play", "rank": 14}


def _secret_pick() -> Event:
    step: Step[Any] = Step(
        state=None,
        text="Red has chosen a card.",
        private={0: "You chose the Brute (14)."},
        public_action={"type": "play"},
        full_text="Red chose the Brute (14).",
    )
    return Event(seq=5, kind=Event.Kind.ACTION, seat=0, payload=payload(step, PICK), actor="user:1")


def test_the_event_row_keeps_the_full_action_and_every_audience() -> None:
    stored = _secret_pick().payload
    assert stored["action"] == PICK
    assert stored["text"] == "Red has chosen a card."
    assert stored["private"] == {"0": "You chose the Brute (14)."}
    assert stored["public_action"] == {"type": "play"}
    assert stored["full_text"] == "Red chose the Brute (14)."


def test_a_public_action_stores_only_the_action_and_its_sentence() -> None:
    step: Step[Any] = Step(state=None, text="Red passes.")
    assert payload(step, {"type": "pass"}) == {"action": {"type": "pass"}, "text": "Red passes."}


def test_others_and_spectators_read_only_what_the_rule_set_allows() -> None:
    event = _secret_pick()
    for viewer in (Viewer(seat=1), Viewer(seat=2), Viewer(seat=None)):
        row = shape(event, viewer)
        assert row["text"] == "Red has chosen a card."
        assert row["action"] == {"type": "play"}
        assert "14" not in repr(row)


def test_the_chooser_reads_its_own_choice_in_full() -> None:
    row = shape(_secret_pick(), Viewer(seat=0))
    assert row["text"] == "You chose the Brute (14)."
    assert row["action"] == PICK


def test_everyone_reads_the_choice_once_the_game_is_over() -> None:
    event = _secret_pick()
    assert text_for(event, Viewer(seat=None, game_over=True)) == "Red chose the Brute (14)."
    assert action_for(event, Viewer(seat=2, game_over=True)) == PICK
    # A seat's own private sentence stays its own, after the end too.
    assert text_for(event, Viewer(seat=0, game_over=True)) == "You chose the Brute (14)."


def test_private_details_without_a_full_text_stay_private_for_ever() -> None:
    step: Step[Any] = Step(state=None, text="Blue places 2 rubies and draws 2 cards.",
                           private={1: "Blue places 2 rubies and draws a pearl and a ruby."})
    event = Event(seq=3, kind=Event.Kind.ACTION, seat=1, payload=payload(step, {"type": "place"}), actor="x")
    assert text_for(event, Viewer(seat=None, game_over=True)) == "Blue places 2 rubies and draws 2 cards."
    assert text_for(event, Viewer(seat=0, game_over=True)) == "Blue places 2 rubies and draws 2 cards."
    assert "pearl" in text_for(event, Viewer(seat=1))


def test_the_seed_shows_only_once_the_game_is_over() -> None:
    started = Event(seq=1, kind=Event.Kind.GAME_STARTED, seat=None,
                    payload={"players": 3, "seed": "s3cr3t", "options": {}}, actor="system")
    assert shape(started, Viewer(seat=0))["seed"] is None
    assert shape(started, Viewer(game_over=True, seed_revealed=True))["seed"] == "s3cr3t"
    # A rule set that keeps something secret for ever keeps the seed too (K-END-4).
    assert shape(started, Viewer(game_over=True, seed_revealed=False))["seed"] is None
    assert shape(started, Viewer())["text"] == "The game started with 3 players."
