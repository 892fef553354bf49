"""The Pirates (2021) rule set: the engine contract (engine.base.Rules) over the modules of
this package."""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from engine.base import JSON, Action, OptionInfo, Rules, Step, check_new_game, fresh_rng_state
from engine.errors import InvalidOptions
from engine.pirates import legal, play, scoring, serial, strategy
from engine.pirates.actions import Capture, Mutiny, check
from engine.pirates.cards import BUNDLED_DEFAULT, KINDS, SUPPLY_PER_KIND, resolve_card_set
from engine.pirates.describe import describe
from engine.pirates.preview import preview
from engine.pirates.state import DISPLAY_SPACES, EMPTY, NOBODY, PIRATES_PER_SEAT, START_DUCATS, PiratesState
from engine.pirates.view import view


def _deck(ids: Sequence[str], index: dict[str, int], value: Any, card: str, card_set_id: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise InvalidOptions(f"deck must be a list of {card} ids, top first")
    unknown = [c for c in value if c not in index]
    if unknown:
        raise InvalidOptions(f"deck: unknown {card} ids {', '.join(unknown)} (card set {card_set_id!r})")
    if len(value) != len(ids) or len(set(value)) != len(value):
        raise InvalidOptions(f"deck must list each of the {len(ids)} {card}s exactly once")
    return [index[c] for c in value]


def deal(
    ids: Sequence[str],
    index: dict[str, int],
    card_set_id: str,
    players: int,
    seed: int | str,
    options: dict[str, Any],
    card: str = "card",
) -> tuple[list[int], int, random.Random]:
    """The deck order (top first), the first seat and the generator after those draws
    (P-SET-5). The seed always drives the same draws, shuffle then first seat, whatever the
    options `deck` and `first_seat` fix, so a seed means the same thing in every game that
    shares it."""
    rng = random.Random(seed)
    order = list(range(len(ids)))
    rng.shuffle(order)
    first = rng.randrange(players)
    if "deck" in options:
        order = _deck(ids, index, options["deck"], card, card_set_id)
    if "first_seat" in options:
        first = options["first_seat"]
        if type(first) is not int or not 0 <= first < players:
            raise InvalidOptions(f"first_seat must be a seat number from 0 to {players - 1}")
    return order, first, rng


class PiratesRules(Rules[PiratesState]):
    id = "pirates"
    version = 1
    title = "Pirates (2021)"
    min_players = 3
    max_players = 5
    options = (
        OptionInfo(
            "card_set",
            "The card set: a bundled one by id, or a whole card-set object.",
            example=BUNDLED_DEFAULT,
        ),
        OptionInfo(
            "deck", "Every card id, top first, instead of the shuffle.", secret=True, fixes_chance=True
        ),
        OptionInfo(
            "first_seat",
            "The seat to start, instead of the draw.",
            secret=True,
            fixes_chance=True,
            example=0,
        ),
    )
    # The deck's order (P-SET-2) and the random state never reach a browser while the game runs.
    secret_parts = ("deck", "rng")
    # evaluate is the costliest of the rule sets (a score sheet after every move considered):
    # short rollouts.
    search_tuning = MappingProxyType({"depth": 8, "candidates": 4, "scale": 15.0})

    def new_game(self, players: int, seed: int | str, options: dict[str, Any] | None = None) -> PiratesState:
        options = check_new_game(
            "Pirates", players, seed, options,
            low=self.min_players, high=self.max_players, known=[o.name for o in self.options],
        )
        card_set = resolve_card_set(options.get("card_set"))
        order, first, rng = deal(card_set.ids, card_set.index, card_set.id, players, seed, options)
        display = tuple(order[:DISPLAY_SPACES]) + (EMPTY,) * max(0, DISPLAY_SPACES - len(order))
        return PiratesState(
            card_set=card_set,
            players=players,
            parties=tuple((p,) for p in range(players * PIRATES_PER_SEAT)),
            treasury=(START_DUCATS,) * players,
            booty=((0,) * len(KINDS),) * players,
            supply=(SUPPLY_PER_KIND,) * len(KINDS),
            kept=((),) * players,
            discarded=(),
            display=display,
            deck=tuple(order[DISPLAY_SPACES:]),
            black_spot=NOBODY,
            active=first,
            passes=0,
            actions=0,
            end="",
            rng_state=rng.getstate(),
        )

    def to_act(self, state: PiratesState) -> list[int]:
        return [] if state.end else [state.active]

    def legal_actions(self, state: PiratesState, seat: int) -> list[Action]:
        return legal.legal_actions(state, seat)

    def step(self, state: PiratesState, seat: int, action: Action) -> Step[PiratesState]:
        # One check and one perform: the sentence is told from the checked move, the two
        # states and the boarding outcome, so nothing is validated or performed twice.
        move = check(state, seat, action)
        if isinstance(move, Capture | Mutiny):
            after, outcome = play.perform_boarding(state, seat, move)
            return Step(after, describe(state, seat, move, after, outcome))
        after = play.perform(state, seat, move)
        return Step(after, describe(state, seat, move, after, None))

    def apply(self, state: PiratesState, seat: int, action: Action) -> PiratesState:
        # Replays and bots need no sentence, so they skip making one.
        return play.perform(state, seat, check(state, seat, action))

    def reveals(self, state: PiratesState, seat: int, action: Action) -> str | None:
        return play.reveals(state, check(state, seat, action))

    def preview(self, state: PiratesState, seat: int, action: Action) -> str | None:
        return preview(state, seat, action)

    def forced_action(self, state: PiratesState, seat: int) -> Action | None:
        """P-TURN-1: the seat to act passes when it has nothing else to do; ``has_move``
        stops at the first possible action instead of listing them all."""
        if state.end or seat != state.active or legal.has_move(state, seat):
            return None
        return legal.PASS_ACTION

    def evaluate(self, state: PiratesState, seat: int) -> float:
        return strategy.evaluate(state, seat)

    def determinize(self, state: PiratesState, seat: int, rng: random.Random) -> PiratesState:
        """Hidden from every seat: the deck's order and the generator (P-CAP-9 draws)."""
        deck = sorted(state.deck)  # from what the seat knows (which cards), not the real order
        rng.shuffle(deck)
        return state._replace(deck=tuple(deck), rng_state=fresh_rng_state(rng))

    def view(self, state: PiratesState, seat: int | None) -> dict[str, JSON]:
        return view(state, seat, rules_id=self.id, version=self.version, title=self.title)

    def score_now(self, state: PiratesState) -> list[int | float]:
        """Ducats plus the end bonuses (majorities, wheels, the black spot): every input of
        the score sheet is public. Ducats in hand alone made the player who lost after final
        scoring look like the winner."""
        return list(scoring.totals(state))

    def result(self, state: PiratesState) -> dict[str, list[int]] | None:
        return scoring.final_result(state) if state.end else None

    def dump(self, state: PiratesState) -> dict[str, JSON]:
        return serial.dump(state, rules_id=self.id, version=self.version)

    def load(self, data: dict[str, JSON]) -> PiratesState:
        return serial.load(data, rules_id=self.id, version=self.version)

    def action_count(self, state: PiratesState) -> int:
        return state.actions

    def is_finished(self, state: PiratesState) -> bool:
        return bool(state.end)
