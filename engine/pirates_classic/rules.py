"""The Pirates (classic) rule set: the engine contract (engine.base.Rules) over the modules of
this package. The rules are engine/pirates_classic/rules.md (rule ids C-…)."""

from __future__ import annotations

import random
from types import MappingProxyType
from typing import Any

from engine.base import JSON, Action, OptionInfo, Rules, Step, check_new_game, fresh_rng_state
from engine.pirates.rules import deal
from engine.pirates.state import PIRATES_PER_SEAT
from engine.pirates_classic import legal, play, scoring, serial
from engine.pirates_classic.actions import check
from engine.pirates_classic.cards import KINDS, resolve_ship_set
from engine.pirates_classic.describe import sentence
from engine.pirates_classic.preview import preview
from engine.pirates_classic.state import DISPLAY_SPACES, EMPTY, NOT_ASKED, START_DUCATS, ClassicState, waiting
from engine.pirates_classic.view import view

OPTIONS = ("card_set", "deck", "first_seat")


class PiratesClassicRules(Rules[ClassicState]):
    id = "pirates-classic"
    version = 1
    title = "Pirates (classic)"
    min_players = 3
    max_players = 5
    options = (
        OptionInfo("card_set", "The ship set: a bundled one by id, or a whole card-set object."),
        OptionInfo(
            "deck", "Every ship id, top first, instead of the shuffle.", secret=True, fixes_chance=True
        ),
        OptionInfo("first_seat", "The seat to start, instead of the draw.", secret=True, fixes_chance=True),
    )
    simultaneous = True  # the challenge questions are asked of several seats at once (C-MUT-2)
    chance_in_play = False  # the shuffle and the first seat are drawn at setup only
    search_tuning = MappingProxyType({"depth": 12, "candidates": 4, "scale": 12.0})

    def new_game(self, players: int, seed: int | str, options: dict[str, Any] | None = None) -> ClassicState:
        options = check_new_game(
            "Pirates (classic)", players, seed, options,
            low=self.min_players, high=self.max_players, known=OPTIONS,
        )
        ship_set = resolve_ship_set(options.get("card_set"))
        # C-SET-4: as in the 2021 edition, the seed shuffles, then draws the first seat.
        order, first, rng = deal(ship_set.ids, ship_set.index, ship_set.id, players, seed, options, "ship")
        display = tuple(order[:DISPLAY_SPACES]) + (EMPTY,) * max(0, DISPLAY_SPACES - len(order))
        return ClassicState(
            card_set=ship_set,
            players=players,
            parties=tuple((p,) for p in range(players * PIRATES_PER_SEAT)),
            treasury=(START_DUCATS,) * players,
            booty=((0,) * len(KINDS),) * players,
            boarded=(),
            display=display,
            deck=tuple(order[DISPLAY_SPACES:]),
            active=first,
            asked=(NOT_ASKED,) * players,  # every pirate starts single: nobody can challenge
            answers=(0,) * players,
            skips=0,
            actions=0,
            end="",
            rng_state=rng.getstate(),
        )

    def to_act(self, state: ClassicState) -> list[int]:
        if state.end:
            return []
        return waiting(state) or [state.active]

    def legal_actions(self, state: ClassicState, seat: int) -> list[Action]:
        return legal.legal_actions(state, seat)

    def step(self, state: ClassicState, seat: int, action: Action) -> Step[ClassicState]:
        decision = check(state, seat, action)
        outcome = play.perform(state, seat, decision)
        return Step(outcome.state, sentence(state, seat, decision, outcome))

    def apply(self, state: ClassicState, seat: int, action: Action) -> ClassicState:
        return play.perform(state, seat, check(state, seat, action)).state

    def reveals(self, state: ClassicState, seat: int, action: Action) -> str | None:
        return play.reveals(state, check(state, seat, action))

    def preview(self, state: ClassicState, seat: int, action: Action) -> str | None:
        # The classic edition draws nothing during a move except the refill after the last
        # face-up ship is boarded, which the preview announces without naming the ships.
        return preview(state, seat, action)

    def forced_action(self, state: ClassicState, seat: int) -> Action | None:
        """C-TURN-1: a seat that can neither move nor board skips, applied by the service."""
        if state.end or seat != state.active or waiting(state) or legal.has_move(state, seat):
            return None
        return dict(legal.SKIP)

    def timeout_action(self, state: ClassicState, seat: int) -> Action | None:
        """C-MUT-2: a challenge question unanswered at the deadline counts as declined."""
        if not state.end and state.asked[seat] >= 0 and not state.answers[seat]:
            return dict(legal.DECLINE)
        return None

    def evaluate(self, state: ClassicState, seat: int) -> float:
        return scoring.evaluate(state, seat)

    def determinize(self, state: ClassicState, seat: int, rng: random.Random) -> ClassicState:
        """Hidden from every seat: the deck's order and the generator; the challenge questions
        and answers are public."""
        deck = sorted(state.deck)  # from what the seat knows (which cards), not the real order
        rng.shuffle(deck)
        return state._replace(deck=tuple(deck), rng_state=fresh_rng_state(rng))

    def view(self, state: ClassicState, seat: int | None) -> dict[str, JSON]:
        return view(state, seat, rules_id=self.id, version=self.version, title=self.title)

    def score_now(self, state: ClassicState) -> list[int | float]:
        """C-END-1: treasuries plus the booty's majority bonuses, all public."""
        return list(scoring.totals(state))

    def result(self, state: ClassicState) -> dict[str, list[int]] | None:
        return scoring.final_result(state) if state.end else None

    def dump(self, state: ClassicState) -> dict[str, JSON]:
        return serial.dump(state, rules_id=self.id, version=self.version)

    def load(self, data: dict[str, JSON]) -> ClassicState:
        return serial.load(data, rules_id=self.id, version=self.version)

    def action_count(self, state: ClassicState) -> int:
        return state.actions

    def is_finished(self, state: ClassicState) -> bool:
        return bool(state.end)
