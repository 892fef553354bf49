"""The Captain Lucky rule set: the engine contract (engine.base.Rules) over the modules of
this package."""

from __future__ import annotations

import random
from types import MappingProxyType
from typing import Any

from engine.base import JSON, Action, OptionInfo, Rules, Step, check_new_game, fresh_rng_state
from engine.captain_lucky import legal, play, scoring, serial, strategy
from engine.captain_lucky.actions import check
from engine.captain_lucky.cards import KINDS, MAX_PLAYERS, MIN_PLAYERS, composition, unshuffled_pile
from engine.captain_lucky.preview import preview as preview_of
from engine.captain_lucky.state import (
    COLOURS,
    HAND_SIZE,
    MIDDLE_START,
    OVER,
    PLACE,
    Area,
    LuckyState,
    add_cards,
)
from engine.captain_lucky.view import view
from engine.errors import InvalidOptions

OPTIONS = ("deck",)


def _deck(players: int, value: Any) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise InvalidOptions("deck must be a list of kinds, top first")
    unknown = sorted({k for k in value if k not in KINDS})
    if unknown:
        raise InvalidOptions(f"deck: unknown kinds {', '.join(unknown)}; kinds: {', '.join(KINDS)}")
    wanted = composition(players)
    got = tuple(value.count(kind) for kind in KINDS)
    if got != wanted:
        counts = ", ".join(f"{n} {kind}" for n, kind in zip(wanted, KINDS, strict=True))
        raise InvalidOptions(f"deck must hold exactly the packs for {players} players: {counts}")
    return [KINDS.index(k) for k in value]


class CaptainLuckyRules(Rules[LuckyState]):
    id = "captain-lucky"
    version = 1
    title = "Captain Lucky (2024)"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    options = (
        OptionInfo(
            "deck",
            "Every treasure card's kind, top first, instead of the shuffle.",
            secret=True,
            fixes_chance=True,
        ),
    )
    simultaneous = False
    chance_in_play = True  # the dice (K-TURN-7)
    # The dice make the far future noise: shorter rollouts, and so more rounds, won more
    # (2 players, 40 games at 0.25 s: 27 at depth 16, 24 at depth 40).
    search_tuning = MappingProxyType({"depth": 16, "candidates": 4, "scale": 2.0})
    colours = COLOURS
    # K-END-4 keeps hands secret for ever. The seed, like a fixed deck, predicts the deal and
    # with the public log every hand: neither may be revealed when the game ends.
    reveal_seed_at_end = False

    def new_game(self, players: int, seed: int | str, options: dict[str, Any] | None = None) -> LuckyState:
        options = check_new_game(
            "Captain Lucky", players, seed, options,
            low=self.min_players, high=self.max_players, known=OPTIONS,
        )
        # K-TURN-7: one generator for the whole game. It shuffles first, always, so the dice
        # of a seed are the same whether or not a deck is fixed.
        rng = random.Random(seed)
        pile = unshuffled_pile(players)
        rng.shuffle(pile)
        if "deck" in options:
            pile = _deck(players, options["deck"])
        # K-SET-2: five cards per seat in seat order, then three face up, in order.
        hands = []
        for seat in range(players):
            dealt = pile[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
            hands.append(tuple(dealt.count(k) for k in range(len(KINDS))))
        start = players * HAND_SIZE
        middle: Area = ()
        next_middle = 1
        for kind in pile[start : start + MIDDLE_START]:
            middle, next_middle, _ = add_cards(middle, next_middle, kind, 1)
        return LuckyState(
            players=players,
            hands=tuple(hands),
            pile=tuple(pile[start + MIDDLE_START :]),
            middle=middle,
            collections=((),) * players,
            next_middle=next_middle,
            next_set=(1,) * players,
            discard=(),
            captain_used=(False,) * players,
            active=0,  # Captain Heart starts (K-COMP-3)
            phase=PLACE,
            steal=None,
            last_roll=None,
            actions=0,
            rng_state=rng.getstate(),
        )

    def to_act(self, state: LuckyState) -> list[int]:
        return [] if state.phase == OVER else [state.active]

    def legal_actions(self, state: LuckyState, seat: int) -> list[Action]:
        return legal.legal_actions(state, seat)

    def step(self, state: LuckyState, seat: int, action: Action) -> Step[LuckyState]:
        story = play.Story()
        new_state = play.perform(state, seat, check(state, seat, action), story)
        return Step(new_state, story.text(), private=story.private())

    def apply(self, state: LuckyState, seat: int, action: Action) -> LuckyState:
        """Without sentences: nobody reads them in a replay or a bot's look-ahead."""
        return play.perform(state, seat, check(state, seat, action), None)

    def reveals(self, state: LuckyState, seat: int, action: Action) -> str | None:
        return play.reveals(state, seat, check(state, seat, action))

    def preview(self, state: LuckyState, seat: int, action: Action) -> str | None:
        """From the mover's own view alone (preview.py): never by stepping, whose next roll
        and next cards are secret (K-END-4, K-TURN-7)."""
        check(state, seat, action)
        return preview_of(seat, action, self.view(state, seat))

    def forced_action(self, state: LuckyState, seat: int) -> Action | None:
        return legal.forced_action(state, seat)

    def evaluate(self, state: LuckyState, seat: int) -> float:
        return strategy.evaluate(state, seat)

    def determinize(self, state: LuckyState, seat: int, rng: random.Random) -> LuckyState:
        """Hidden from ``seat``: the other hands (their sizes are public) and the pile's order
        and the generator. The unseen cards are pooled, shuffled and dealt again."""
        unseen = list(state.pile)
        others = [s for s in range(state.players) if s != seat]
        for s in others:
            for kind, count in enumerate(state.hands[s]):
                unseen += [kind] * count
        unseen.sort()  # which cards are unseen, not where they really are
        rng.shuffle(unseen)
        hands = list(state.hands)
        for s in others:
            size = sum(state.hands[s])
            drawn, unseen = unseen[:size], unseen[size:]
            hands[s] = tuple(drawn.count(kind) for kind in range(len(state.hands[s])))
        return state._replace(hands=tuple(hands), pile=tuple(unseen), rng_state=fresh_rng_state(rng))

    def view(self, state: LuckyState, seat: int | None) -> dict[str, JSON]:
        return view(state, seat, rules_id=self.id, version=self.version, title=self.title)

    def score_now(self, state: LuckyState) -> list[int | float]:
        """K-END-2: collected cards and the unused captain bonus, all public."""
        return [scoring.points(state, s) for s in range(state.players)]

    def result(self, state: LuckyState) -> dict[str, list[int]] | None:
        return scoring.final_result(state) if state.phase == OVER else None

    def dump(self, state: LuckyState) -> dict[str, JSON]:
        return serial.dump(state, rules_id=self.id, version=self.version)

    def load(self, data: dict[str, JSON]) -> LuckyState:
        return serial.load(data, rules_id=self.id, version=self.version)

    def action_count(self, state: LuckyState) -> int:
        return state.actions

    def is_finished(self, state: LuckyState) -> bool:
        return state.phase == OVER
