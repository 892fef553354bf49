"""The Libertalia rule set: the engine contract (engine.base.Rules) over the modules of this
package. Rules in engine/libertalia/rules.md (ids L-…)."""

from __future__ import annotations

import random
from types import MappingProxyType
from typing import Any, cast

from engine.base import JSON, Action, OptionInfo, Rules, Step, fresh_rng_state
from engine.libertalia import flow, scoring, serial, setup, strategy
from engine.libertalia.actions import check, owed, to_act
from engine.libertalia.characters import COLOURS
from engine.libertalia.options import PLAY, options
from engine.libertalia.preview import preview
from engine.libertalia.state import OVER, SUNRISE, LibertaliaState, scores, seat_name
from engine.libertalia.view import view
from engine.libertalia.working_copy import PARROT_SHOWS_OWN, PICK_REVEALED, SILENT, SURGEON_OWN, Log

_SECRET_PLAY: Action = {"type": "play"}
_SECRET_REVIVE: Action = {"type": "revive"}
# What the mover's own decision shows, whatever follows it.
_OWN_REVEALS = {"play": PICK_REVEALED, "parrot": PARROT_SHOWS_OWN, "revive": SURGEON_OWN}


class LibertaliaRules(Rules[LibertaliaState]):
    id = "libertalia"
    version = 1
    title = "Libertalia"
    min_players = setup.MIN_PLAYERS
    max_players = setup.MAX_PLAYERS
    simultaneous = True  # Sunrise picks and Waitress questions (L-DEC-2)
    chance_in_play = True  # the Spanish Spy draws from the bag (L-CHAR-17)
    search_tuning = MappingProxyType({"depth": 40, "candidates": 4, "scale": 8.0})
    colours = COLOURS
    options = (
        OptionInfo(
            "character_set",
            "The character set: a bundled one by id, or a whole character-set object (corrected influence).",
        ),
        OptionInfo(
            "colours", "The colour of each seat, instead of the draw.", secret=True, fixes_chance=True
        ),
        OptionInfo(
            "ranks",
            "The ranks dealt in campaign 1 (9), and optionally 2 and 3 (6 each), instead of the draw.",
            secret=True,
            fixes_chance=True,
        ),
        OptionInfo(
            "layouts",
            "The booty laid out on the six day-spaces of campaign 1 (and optionally 2 and 3).",
            secret=True,
            fixes_chance=True,
        ),
        OptionInfo(
            "draws",
            "The tokens the Spanish Spy draws, in order, instead of the draw.",
            secret=True,
            fixes_chance=True,
        ),
    )

    def new_game(
        self, players: int, seed: int | str, options: dict[str, Any] | None = None
    ) -> LibertaliaState:
        return setup.new_game(players, seed, options)

    def to_act(self, state: LibertaliaState) -> list[int]:
        return to_act(state)

    def legal_actions(self, state: LibertaliaState, seat: int) -> list[Action]:
        if type(seat) is not int or not 0 <= seat < state.players:
            return []
        if state.phase == SUNRISE:  # owed(...) == "play", the commonest, written out
            return [] if state.picks[seat] else [PLAY[rank] for rank in state.hands[seat]]
        decision = owed(state, seat)
        # options makes a new list on each call: no copy needed.
        return cast(list[Action], options(state, decision, seat)) if decision else []

    def step(self, state: LibertaliaState, seat: int, action: Action) -> Step[LibertaliaState]:
        move = check(state, seat, action)
        log = Log()
        after = flow.perform(state, seat, move, log)
        text = log.public()
        private = {s: log.for_seat(s) for s in log.private_seats()}
        if move.type == "play" and state.picks.count(0) > 1:
            # Not the last pick: secret until the reveal (L-SUN-1); named after the game.
            card = f"the {state.chars.name[move.rank]} (rank {move.rank})"
            waiting = ", ".join(seat_name(after, s) for s in to_act(after))
            full = f"{seat_name(state, seat)} chose {card}; waiting for {waiting}."
            return Step(after, text, private, _SECRET_PLAY, full)
        if move.type == "revive":
            return Step(after, text, private, _SECRET_REVIVE)
        return Step(after, text, private)

    def apply(self, state: LibertaliaState, seat: int, action: Action) -> LibertaliaState:
        return flow.perform(state, seat, check(state, seat, action), SILENT)

    def preview(self, state: LibertaliaState, seat: int, action: Action) -> str | None:
        # Read from the public table and the mover's own hand and graveyard only (preview.py).
        return preview(state, seat, action)

    def reveals(self, state: LibertaliaState, seat: int, action: Action) -> str | None:
        """A Sunrise pick, a Parrot's card and a Surgeon's return are final by what they are;
        any other decision by what the engine then plays on to (L-DEC-5) before the next
        decision: a Spanish Spy's draw, a card from a hand, the End of a campaign. That play
        runs on a copy (the state and its generator are untouched), and up to its first
        reveal it follows public parts only (the ship, dens, booty, doubloons, hand and
        graveyard sizes), so the answer is the same whatever the secrets are."""
        move = check(state, seat, action)
        own = _OWN_REVEALS.get(move.type)
        if own is not None:
            return own
        log = Log(text=False)
        flow.perform(state, seat, move, log)
        return log.revealed

    def describe(self, state: LibertaliaState, seat: int, action: Action) -> str:
        """The public sentence of an action (as ``step(...).text``)."""
        return self.step(state, seat, action).text

    def evaluate(self, state: LibertaliaState, seat: int) -> float:
        return strategy.evaluate(state, seat)

    def determinize(self, state: LibertaliaState, seat: int, rng: random.Random) -> LibertaliaState:
        """Hidden from ``seat`` (L-ZONE-2): each other seat's hand, graveyard, removed cards
        and Sunrise choice (only their sizes are public), the generator (future deals and bag
        draws) and the option draws still to come. Each other seat's unseen characters are
        pooled, shuffled and dealt again into places of the same sizes; future draws come from
        a fresh generator."""
        hands, graves, removed = list(state.hands), list(state.graves), list(state.removed)
        picks = list(state.picks)
        for s in range(state.players):
            if s == seat:
                continue
            # Which characters are unseen, in a fixed order: not where they really are.
            chosen = [state.picks[s]] if state.picks[s] else []
            pool = sorted([*state.hands[s], *state.graves[s], *state.removed[s], *chosen])
            rng.shuffle(pool)
            if state.picks[s]:
                picks[s] = pool.pop()
            held, dead = len(state.hands[s]), len(state.graves[s])
            hands[s] = tuple(sorted(pool[:held]))
            graves[s] = tuple(sorted(pool[held : held + dead]))
            removed[s] = tuple(sorted(pool[held + dead :]))
        return state._replace(
            hands=tuple(hands),
            graves=tuple(graves),
            removed=tuple(removed),
            picks=tuple(picks),
            fixed_ranks=state.fixed_ranks[: state.campaign],
            fixed_layouts=state.fixed_layouts[: state.campaign],
            fixed_draws=(),
            rng_state=fresh_rng_state(rng),
        )

    def view(self, state: LibertaliaState, seat: int | None) -> dict[str, JSON]:
        return view(state, seat, rules_id=self.id, version=self.version, title=self.title)

    def score_now(self, state: LibertaliaState) -> list[int | float]:
        """L-END-4: the fortunes of the campaigns ended so far (the running campaign counts
        when it ends)."""
        return list(scores(state))

    def result(self, state: LibertaliaState) -> dict[str, list[int]] | None:
        return scoring.final_result(state) if state.phase == OVER else None

    def dump(self, state: LibertaliaState) -> dict[str, JSON]:
        return serial.dump(state, rules_id=self.id, version=self.version)

    def load(self, data: dict[str, JSON]) -> LibertaliaState:
        return serial.load(data, rules_id=self.id, version=self.version)

    def action_count(self, state: LibertaliaState) -> int:
        return state.actions

    def is_finished(self, state: LibertaliaState) -> bool:
        return state.phase == OVER

    def seat_colours(self, players: int) -> list[str]:
        return list(COLOURS[:players])
