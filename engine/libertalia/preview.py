"""What a Libertalia move will do, said before it is made, in the game's words (``Rules.preview``).

A preview reads only what the mover may see: the public table (ship, dens, booty, doubloons,
day-spaces) and the mover's own hand and graveyard. It never reads another seat's hand,
graveyard or Sunrise choice, the bag's order or the generator, and it never steps the engine
(the Day that follows a decision may hold a Spanish Spy's draw).

A Sunrise choice cannot know where the character will stand on the ship (that depends on the
others' secret choices), so its preview says what the character does and what is certain
now. Every other decision has a certain outcome, which the preview states with the totals
afterwards. Each forecast also carries its claims as data (``Forecast.claims``) so the tests
can hold them against the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import IllegalAction
from engine.libertalia import campaign, day, night
from engine.libertalia.actions import check
from engine.libertalia.characters import KINDS, MAP, OFFICER, RELIC, SABER
from engine.libertalia.dusk import TOKENS_TAKEN
from engine.libertalia.options import OFFERS, neighbours
from engine.libertalia.state import LibertaliaState, key, left_of, seat_name
from engine.libertalia.working_copy import booty_words, listing

# A claim: ("doubloons", seat) -> int, ("booty", seat, kind) -> int, ("space", kind) -> int,
# ("den", seat) -> ranks, ("graveyard_count", seat) -> int, ("hand_count", seat) -> int,
# ("ship",) -> ((seat, rank), ...), ("pick", seat) -> rank.
Claim = tuple[Any, ...]


@dataclass
class Forecast:
    text: str
    claims: dict[Claim, Any] = field(default_factory=dict)


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _doubloons(count: int) -> str:
    return _n(count, "doubloon")


class _Words:
    """Names from the state's public parts, as the log writes them."""

    def __init__(self, state: LibertaliaState, seat: int) -> None:
        self.state = state
        self.seat = seat

    def who(self, seat: int) -> str:
        return "you" if seat == self.seat else seat_name(self.state, seat)

    def whose(self, seat: int) -> str:
        return "your" if seat == self.seat else f"{seat_name(self.state, seat)}'s"

    def name(self, rank: int) -> str:
        return str(self.state.chars.name[rank])

    def card(self, rank: int) -> str:
        return f"the {self.name(rank)} ({rank})"

    def character(self, seat: int, rank: int) -> str:
        return f"{self.whose(seat)} {self.name(rank)} ({rank})"

    def token(self, kind: int, count: int = 1) -> str:
        name = str(self.state.chars.booty_name[kind])
        if count == 1 and name.endswith("s"):  # a count the player can check: "1 goods"
            return f"1 {name}"
        return booty_words(self.state.chars, kind, count)

    def tokens(self, counts: list[int] | tuple[int, ...]) -> str:
        return listing([self.token(k, n) for k, n in enumerate(counts) if n])


def _dusk_words(taken: int, day_number: int, space: str) -> str:
    """What a character that reaches Dusk does there (L-DUSK)."""
    if taken == 0:
        return "Dusk: takes no booty, then enters your den"
    officer = " (a Spanish officer sends it to your graveyard instead)"
    if taken == 1:
        return (f"Dusk: takes 1 token of day-space {day_number} ({space}) if any is left when its turn "
                f"comes, then enters your den{officer}")
    return (f"Dusk: takes {taken} tokens of day-space {day_number} ({space}), one after the other, "
            f"while any are left, then enters your den{officer}")


def character_effects(state: LibertaliaState, seat: int, rank: int) -> list[str]:
    """What the character does at each of its timings, with the numbers it would use now
    (its owner's doubloons, booty and den are public; the graveyard is the owner's own)."""
    w = _Words(state, seat)
    money = state.doubloons[seat]
    held = sum(state.booty[seat])
    booty = state.booty[seat]
    den = state.dens[seat]
    graves = len(state.graves[seat])
    low = sum(1 for r in den if r < day.BOSUN_BELOW)
    offers = " or ".join(f"{count} of one kind to gain {gain}" for count, gain in OFFERS)
    # Day (L-CHAR): the figures in brackets are today's, before anyone else acts. Each entry
    # words one character; only the one played is worded.
    day_effects: dict[int, Callable[[], str]] = {
        1: lambda: ("Day: the Parrot goes to your graveyard and you put another card of your hand on the "
                    "ship at once, where it takes its own turn"),
        2: lambda: (f"Day: your cursed relics (you hold {booty[RELIC]} now) go to "
                    f"{seat_name(state, left_of(state.players, seat))}, your left neighbour"),
        3: lambda: (f"Day: the owner of the highest character on the ship pays you {day.BEGGAR_PAY} "
                    "doubloons, or all they hold (nothing if this Beggar is the highest)"),
        4: lambda: ("Day: you take a character of your den back into your hand "
                    f"(your den holds {len(den)} now)"),
        6: lambda: (f"Day: if you hold 2 or more tokens (you hold {held} now), keep one of a kind you "
                    "choose and discard all the others"),
        9: lambda: f"Day: lose half your doubloons, rounded down (with {money} now: −{money // 2})",
        10: lambda: (f"Day: gain {day.FRENCH_GAIN} if you hold fewer than {day.FRENCH_BELOW} doubloons "
                     f"(you hold {money} now)"),
        11: lambda: (f"Day: gain {day.VOODOO_PER} per character in your graveyard "
                     f"({graves} now: +{day.VOODOO_PER * graves})"),
        14: lambda: ("Day: discard the highest character on the ship, whoever owns it (this Brute itself "
                     "if it is the highest)"),
        15: lambda: (f"Day: pay {day.GUNNER_PAY} doubloons (you hold {money} now), then discard a character "
                     "of your choice from any den"),
        17: lambda: (f"Day: return your Spanish officers to the bag ({booty[OFFICER]} now) and draw as many "
                     "tokens from the bag at random; they take no effect"),
        19: lambda: (f"Day: gain {day.BOSUN_PER} per character in your den ranked below {day.BOSUN_BELOW} "
                     f"({low} now: +{day.BOSUN_PER * low})"),
        21: lambda: f"Day: discard {offers} (a must when you can)",
        22: lambda: ("Day: take a character of your graveyard back into your hand, in secret "
                     f"(your graveyard holds {graves} now)"),
        24: lambda: (f"Day: lose {day.GAMBLER_PER} per token you hold "
                     f"({held} now: −{min(money, day.GAMBLER_PER * held)})"),
        26: lambda: (f"Day: gain {day.QUARTERMASTER_PER} per token you hold "
                     f"({held} now: +{day.QUARTERMASTER_PER * held})"),
        29: lambda: f"Day: gain {day.CAPTAIN_GAIN}",
        30: lambda: f"Day: discard every character of your den ({len(den)} now)",
    }
    parts = [day_effects[rank]()] if rank in day_effects else []
    # Dusk (L-DUSK)
    taken = TOKENS_TAKEN.get(rank, 1)
    space = w.tokens(state.spaces[state.day - 1])
    # The Parrot leaves the ship in its Day turn and never reaches Dusk.
    if rank != day.PARROT_RANK:
        parts.append(_dusk_words(taken, state.day, space))
    # Night (L-NIGHT), every Night it is in your den
    night_effects: dict[int, Callable[[], str]] = {
        7: lambda: f"Night: gain {night.BARKEEP_GAIN}, every Night",
        8: lambda: (f"Night: you may discard a treasure map to gain {night.WAITRESS_GAIN}, every Night "
                    f"(you hold {booty[MAP]} now)"),
        12: lambda: (f"Night: gain {night.FREED_PER} per character in your den ranked above "
                     f"{night.FREED_ABOVE}, every Night"),
        13: lambda: (f"Night: discard the lowest other character of your den and gain "
                     f"{night.MUTINEER_GAIN}, every Night"),
        20: lambda: (f"Night: gain {night.ARMORER_PER} per saber you hold, every Night (you hold "
                     f"{booty[SABER]} now)"),
        27: lambda: (f"Night: gain {night.GRANNY_GAIN} if it is the only Granny Wata in any den; otherwise "
                     "every Granny Wata is discarded"),
    }
    if rank in night_effects:
        parts.append(night_effects[rank]())
    # End of campaign (L-END), if it is still in your den
    end = {
        6: f"gain {campaign.PREACHER_GAIN}",
        9: f"gain {campaign.CARPENTER_GAIN}",
        16: f"gain {campaign.TOPMAN_GAIN} if no player has fewer characters in their den than you",
        23: f"gain {campaign.TREASURER_PER} per goods, jewel and chest you hold",
        24: f"gain {campaign.GAMBLER_GAIN}",
        25: f"gain {campaign.DAUGHTER_GAIN} if no other den holds a Governor's Daughter, otherwise lose "
            f"{campaign.DAUGHTER_LOSS}",
        26: f"lose {campaign.QUARTERMASTER_LOSS}",
        28: f"gain {campaign.FIRST_MATE_PER} per character in your den, the First Mate included",
        29: f"lose {campaign.CAPTAIN_PER} per cursed relic you hold (you hold {booty[RELIC]} now)",
    }.get(rank)
    if end:
        parts.append(f"End of campaign, if still in your den: {end}")
    return parts


def _sentences(parts: list[str]) -> str:
    return " ".join(p[:1].upper() + p[1:] + "." for p in parts)


def forecast(state: LibertaliaState, seat: int, action: dict[str, Any]) -> Forecast | None:
    """What ``action`` (legal for ``seat``) will do; None when it is not legal."""
    try:
        move = check(state, seat, action)
    except IllegalAction:
        return None
    w = _Words(state, seat)
    kind = move.type
    hand = len(state.hands[seat])
    if kind == "play":
        rank = move.rank
        influence = state.chars.influence[state.colours[seat]][rank]
        head = (f"You choose {w.card(rank)}, influence {influence}, in secret; it is revealed when everyone "
                f"has chosen. On the ship it acts after every lower rank by Day and takes booty before them "
                f"at Dusk. Your hand keeps {_n(hand - 1, 'card')}.")
        claims: dict[Claim, Any] = {("pick", seat): rank, ("hand_count", seat): hand - 1}
        return Forecast(head + " " + _sentences(character_effects(state, seat, rank)), claims)
    if kind == "parrot":
        rank = move.rank
        ship = sorted([*state.ship, (seat, rank)], key=lambda c: key(state.chars, state.colours, *c))
        at = ship.index((seat, rank))
        if len(ship) == 1:
            where = "alone on the ship"
        elif at == 0:
            where = f"at the left end of the ship, before {w.character(*ship[1])}"
        elif at == len(ship) - 1:
            where = f"at the right end of the ship, after {w.character(*ship[at - 1])}"
        else:
            where = f"on the ship between {w.character(*ship[at - 1])} and {w.character(*ship[at + 1])}"
        head = (f"Your Parrot puts {w.card(rank)} {where}, in view of all; it takes its Day turn when its "
                f"rank comes up. Your hand keeps {_n(hand - 1, 'card')}.")
        claims = {("ship",): tuple(ship), ("hand_count", seat): hand - 1}
        return Forecast(head + " " + _sentences(character_effects(state, seat, rank)), claims)
    if kind == "recruit":
        den = tuple(r for r in state.dens[seat] if r != move.rank)
        text = (f"The {w.name(move.rank)} ({move.rank}) leaves your den for your hand, "
                f"where you can play it again: den {len(state.dens[seat])} → {len(den)} characters, "
                f"hand {hand} → {hand + 1} cards.")
        return Forecast(text, {("den", seat): den, ("hand_count", seat): hand + 1})
    if kind == "revive":
        graves = len(state.graves[seat])
        text = (f"The {w.name(move.rank)} ({move.rank}) goes from your graveyard back into "
                f"your hand; the others learn only that a card returned. Hand {hand} → {hand + 1} cards.")
        return Forecast(text, {("hand_count", seat): hand + 1, ("graveyard_count", seat): graves - 1})
    held = list(state.booty[seat])
    if kind == "keep":
        gone = list(held)
        gone[move.booty] -= 1
        text = (f"You keep {w.token(move.booty)} and discard {w.tokens(gone)} back to the bag: your booty "
                f"goes from {_n(sum(held), 'token')} to 1.")
        kept = [1 if k == move.booty else 0 for k in range(len(KINDS))]
        return Forecast(text, {("booty", seat, k): n for k, n in enumerate(kept)})
    if kind in ("gunner", "saber"):
        victim = w.character(move.seat, move.rank)
        den = tuple(r for r in state.dens[move.seat] if r != move.rank)
        what = "Your Gunner discards" if kind == "gunner" else "The saber discards"
        timing = [t for t in state.chars.character_json(move.rank)["timing"] if t in ("night", "end")]
        lost = {("night",): ": its Night effect stops", ("end",): ": its End effect will not count",
                ("night", "end"): ": its Night and End effects stop"}.get(tuple(timing), "")
        before = len(state.dens[move.seat])
        text = (f"{what} {victim} from the den to the graveyard{lost}. "
                f"{w.whose(move.seat).capitalize()} den: {before} → {len(den)} characters.")
        return Forecast(text, {("den", move.seat): den})
    money = state.doubloons[seat]
    if kind == "sell":
        gain = dict(OFFERS)[move.number]
        left = held[move.booty] - move.number
        value = state.chars.booty_value[move.booty]
        worth = _worth(value, " (each {} at the End)")
        text = (f"You discard {w.token(move.booty, move.number)}{worth} back to the bag and gain "
                f"{_doubloons(gain)}: doubloons {money} → {money + gain}, {w.token(move.booty, left)} left.")
        return Forecast(text, {("doubloons", seat): money + gain, ("booty", seat, move.booty): left})
    if kind == "take":
        return _take(state, seat, move.booty, w)
    # waitress (L-CHAR-8): the rest of this seat's Night is its own lower-ranked characters.
    maps = held[MAP]
    after = money + (night.WAITRESS_GAIN if move.sell else 0)
    later = _rest_of_night(state, seat)
    if move.sell:
        text = (f"You discard a treasure map to gain {night.WAITRESS_GAIN}: doubloons {money} → "
                f"{money + night.WAITRESS_GAIN}, treasure maps {maps} → {maps - 1}.")
    else:
        yours = "your treasure map" if maps == 1 else f"your {w.token(MAP, maps)}"
        text = (f"You keep {yours} (every {state.chars.map_set_size} make a set worth "
                f"{state.chars.map_set_value} at the End); doubloons stay {money}.")
    if later:
        text += f" Then your Barkeep gains {later}: {after} → {after + later} doubloons."
    claims = {("doubloons", seat): after + later, ("booty", seat, MAP): maps - (1 if move.sell else 0)}
    return Forecast(text, claims)


def _worth(value: int, sentence: str) -> str:
    """A token's value at the End in words: "worth 5", "costs 3"; "" for none."""
    if not value:
        return ""
    return sentence.format(f"worth {value}" if value > 0 else f"costs {-value}")


def _rest_of_night(state: LibertaliaState, seat: int) -> int:
    """The doubloons the characters ranked below the Waitress gain afterwards this Night:
    of those, only the Barkeep has a Night effect."""
    return night.BARKEEP_GAIN if 7 in state.dens[seat] else 0


def _take(state: LibertaliaState, seat: int, kind: int, w: _Words) -> Forecast:
    """A Dusk pick (L-DUSK-2 … L-DUSK-5), and what is certain to follow in the same turn."""
    actor = state.actor[1]
    space = list(state.spaces[state.day - 1])
    have = state.booty[seat][kind]
    space[kind] -= 1
    value = state.chars.booty_value[kind]
    parts = [f"Your {w.name(actor)} takes {w.token(kind)} from day-space {state.day}: you then hold "
             f"{w.token(kind, have + 1)}"]
    if kind == MAP:
        size = state.chars.map_set_size
        parts.append(f"every {size} treasure maps make a set worth {state.chars.map_set_value} at the End")
    elif value:
        parts.append(_worth(value, "each {} at the End of the campaign"))
    claims: dict[Claim, Any] = {("booty", seat, kind): have + 1, ("space", kind): space[kind]}
    officer = state.officer or kind == OFFICER
    if kind == SABER:
        targets = [(s, r) for s in neighbours(state.players, seat) for r in state.dens[s]]
        if not targets:
            parts.append("the saber hits nobody: your neighbours' dens are empty")
        elif len(targets) == 1:
            s, r = targets[0]
            parts.append(f"the saber discards {w.character(s, r)}, the only character in your "
                         "neighbours' dens")
            claims[("den", s)] = tuple(x for x in state.dens[s] if x != r)
        else:
            parts.append("then you choose a character in a neighbour's den to discard")
    if state.officer and kind != OFFICER:
        parts.append(f"your {w.name(actor)} still goes to your graveyard at the end of its turn: it took a "
                     "Spanish officer")
    if kind == OFFICER:
        parts.append(f"the Spanish officer sends your {w.name(actor)} to your graveyard at the end of its "
                     "turn instead of your den")
    if state.picks_left > 1 and any(space):
        kinds = [k for k, n in enumerate(space) if n]
        second = "then you take a second token" + (
            f": {w.token(kinds[0])}, the only kind left" if len(kinds) == 1 else ", of your choice"
        )
        parts.append(second)
    elif not officer:
        parts.append(f"then your {w.name(actor)} enters your den")
    return Forecast(_sentences(parts), claims)


def preview(state: LibertaliaState, seat: int, action: dict[str, Any]) -> str | None:
    """The sentence(s) the table shows for ``action``; None for an action that is not legal."""
    found = forecast(state, seat, action)
    return found.text if found else None
