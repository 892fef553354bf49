"""What a Captain Lucky move will do, said before it is made (``Rules.preview``).

Captain Lucky is played with dice and a face-down pile, so a preview may never step the engine:
the next roll and the next cards drawn are in the state's generator and pile order, which no
player may learn (K-END-4, K-TURN-7). A preview is therefore computed from the mover's own view
(their hand, the middle, every collection, points, captains, the pile's size, the dice of the
steal under way, and the numbers the next new sets take, K-SET-3, which anyone can work out
from the public log) and from nothing else. It says what is certain (cards placed,
sets filled, cards drawn and the pile left, points if the steal succeeds) and names what the
dice decide ("Then roll 3 dice: …"), with odds from the public dice alone (K-COMP-2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

HAND_SIZE = 5  # K-TURN-1, K-TURN-6
SET_SIZE = 5  # K-SET-3


class Words:
    """The game's own names for its card kinds, read from a view (``kinds``); the table's
    presenters word the board with the same names."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.kinds: list[dict[str, str]] = list(view.get("kinds") or [])
        self._by_id = {kind["id"]: kind for kind in self.kinds}

    def name(self, kind: str) -> str:
        return self._by_id.get(kind, {}).get("name", kind.replace("_", " "))

    def plural(self, kind: str) -> str:
        return self._by_id.get(kind, {}).get("plural", kind.replace("_", " "))

    def count(self, n: int, kind: str) -> str:
        """ "1 ruby", "2 rubies", "3 jade fish" """
        return f"{n} {self.name(kind) if n == 1 else self.plural(kind)}"


def dice_word(n: int) -> str:
    return f"{n} {'die' if n == 1 else 'dice'}"


def odds(dice: int) -> str:
    """The chance that ``dice`` dice all show a pirate head (K-COMP-2: 1 in 2^n)."""
    return f"1 in {2 ** dice}"


def colour_name(colours: list[str], seat: int) -> str:
    return colours[seat].capitalize() if 0 <= seat < len(colours) else f"Seat {seat}"


@dataclass(frozen=True)
class Counters:
    """The public numbers the next new sets take: ``m<middle>`` and ``p<seat>s<sets[seat]>``."""

    middle: int
    sets: tuple[int, ...]


def counters_of(view: dict[str, Any]) -> Counters | None:
    """The numbers of the next new sets, from the mover's view (K-SET-3: public, each follows
    from the log); None for a view without them."""
    if "next_middle" not in view:
        return None
    return Counters(int(view["next_middle"]), tuple(int(n) for n in view["next_set"]))


@dataclass
class Forecast:
    """What a move will certainly do, and its words. Each number is a claim a test checks
    against the engine after the move is made."""

    text: str = ""
    # Sets of the middle the placed cards fill or start, as the log writes them ("m1: 3 rubies").
    middle_after: str = ""
    # Sets of the mover's collection if the steal succeeds ("p0s1: 4 rubies").
    collection_if_won: str = ""
    # Cards in the mover's hand and in the pile once the move's draws are done (placing, stopping).
    hand_after: int | None = None
    pile_after: int | None = None
    # Points (K-END-2): the mover's at once (the captain bonus costs its +1), and if the steal wins.
    points_now: int | None = None
    points_if_won: int | None = None
    # The victim of a steal from a collection, and their points if it succeeds.
    loser: int | None = None
    loser_points_if_won: int | None = None
    # The move ends the game for certain (K-END-1).
    game_ends: bool = False
    parts: list[str] = field(default_factory=list)


def _cards(n: int) -> str:
    return f"{n} card{'s' if n != 1 else ''}"


def _add(
    sets: list[dict[str, Any]], prefix: str, next_num: int | None, kind: str, count: int
) -> list[tuple[str, int]]:
    """K-SET-3 on the view's sets: which sets ``count`` cards of ``kind`` fill or start, with
    their cards afterwards. A new set whose number is not known is called "a new set"."""
    touched: list[tuple[str, int]] = []
    for existing in sets:
        if existing["kind"] == kind and int(existing["cards"]) < SET_SIZE:
            put = min(SET_SIZE - int(existing["cards"]), count)
            touched.append((str(existing["id"]), int(existing["cards"]) + put))
            count -= put
            break
    while count > 0:
        put = min(SET_SIZE, count)
        touched.append((f"{prefix}{next_num}" if next_num is not None else "a new set", put))
        next_num = None if next_num is None else next_num + 1
        count -= put
    return touched


class _Position:
    """The mover's view, read for a preview."""

    def __init__(self, view: dict[str, Any], seat: int, counters: Counters | None) -> None:
        self.view = view
        self.seat = seat
        self.counters = counters
        self.words = Words(view)
        self.colours: list[str] = list(view.get("colours") or [])
        self.seats: list[dict[str, Any]] = list(view.get("seats") or [])
        own = self.seats[seat] if 0 <= seat < len(self.seats) else {}
        self.hand: dict[str, int] = dict(own.get("hand") or {})
        self.hand_count = int(own.get("hand_count") or 0)
        self.points = int(own.get("points") or 0)
        self.bonus_used = bool(own.get("captain_bonus_used"))
        self.collection: list[dict[str, Any]] = list(own.get("collection") or [])
        self.pile = int(view.get("pile_count") or 0)
        self.players = int(view.get("players") or len(self.seats))
        self.steal: dict[str, Any] = dict(view.get("steal") or {})

    def counted(self, touched: list[tuple[str, int]], kind: str) -> str:
        """Sets as the log names them: "m2: 5 rubies, m5: 1 ruby"."""
        return ", ".join(f"{name}: {self.words.count(cards, kind)}" for name, cards in touched)

    def find_set(self, set_id: str) -> tuple[int | None, dict[str, Any]] | None:
        for s in self.view.get("middle") or []:
            if s["id"] == set_id:
                return None, s
        for seat in self.seats:
            for s in seat.get("collection") or []:
                if s["id"] == set_id:
                    return int(seat["seat"]), s
        return None

    def who(self, seat: int) -> str:
        return colour_name(self.colours, seat)

    def draw_up(self, hand: int, forecast: Forecast) -> str:
        """K-TURN-1, K-TURN-6: draw back up to five, as many as the pile has (a sentence)."""
        need = max(HAND_SIZE - hand, 0)
        drawn = min(need, self.pile)
        forecast.hand_after = hand + drawn
        forecast.pile_after = self.pile - drawn
        if need == 0:
            return f"Your hand stays at {HAND_SIZE} cards."
        if self.pile == 0:
            return f"The pile is empty, so you draw nothing (hand {hand})."
        text = (f"Then you draw {_cards(drawn)} unseen from the pile "
                f"(hand {hand} → {hand + drawn}, pile {self.pile} → {self.pile - drawn})")
        if drawn < need:
            text += f": the pile has only {_cards(self.pile)}"
        return text + "."

    def last_card(self, forecast: Forecast) -> str:
        """K-END-1: the sentence for a draw that empties the pile, or ""."""
        if self.pile == 0 or forecast.pile_after != 0:
            return ""
        return (f"That is the last card, so this round is the last: the game ends after "
                f"{self.who(self.players - 1)}'s turn.")

    def closes_game(self) -> bool:
        """K-END-1: the pile is empty and the mover is the last seat of the round, so this
        turn's steal, won or failed, ends the game."""
        return self.pile == 0 and self.seat == self.players - 1

    def win(self, set_id: str, owner: int | None, target: dict[str, Any], forecast: Forecast) -> str:
        """What an all-heads roll brings (K-TURN-3): the set, the collection after, the points."""
        kind, cards = str(target["kind"]), int(target["cards"])
        prefix = f"p{self.seat}s"
        next_set = self.counters.sets[self.seat] if self.counters else None
        forecast.collection_if_won = self.counted(_add(self.collection, prefix, next_set, kind, cards), kind)
        base = forecast.points_now if forecast.points_now is not None else self.points
        forecast.points_if_won = base + cards
        text = (f"{set_id} ({self.words.count(cards, kind)}) is yours ({forecast.collection_if_won}): "
                f"your points {base} → {base + cards}")
        if owner is not None:
            theirs = int(self.seats[owner].get("points") or 0)
            forecast.loser, forecast.loser_points_if_won = owner, theirs - cards
            text += f", {self.who(owner)}'s {theirs} → {theirs - cards}"
        return text

    def choices_after_blank(self, kind: str, held: int) -> str:
        """K-TURN-4, K-TURN-5: what a blank leaves the mover, with the cards they hold to pay."""
        options = []
        if held:
            options.append(f"pay 1 {self.words.name(kind)} per blank die to re-roll them "
                           f"(you hold {held})")
        if not self.bonus_used:
            options.append("use your captain bonus")
        options.append("stop")
        return "Any blank: " + _or(options) + "."


def _or(options: list[str]) -> str:
    return options[0] if len(options) == 1 else ", ".join(options[:-1]) + " or " + options[-1]


def forecast(
    action: dict[str, Any], view: dict[str, Any], *, seat: int, counters: Counters | None
) -> Forecast:
    """The certain effects of ``action`` (legal for ``seat``) and what the dice decide."""
    pos = _Position(view, seat, counters)
    result = Forecast()
    kind = action.get("type")
    if kind == "place":
        _place(pos, str(action.get("kind")), int(action.get("count") or 0), result)
    elif kind == "steal":
        _steal(pos, str(action.get("set")), result)
    elif kind in ("reroll", "captain_bonus") and pos.steal:
        _reroll(pos, paid=kind == "reroll", forecast=result)
    elif kind == "stop" and pos.steal:
        _stop(pos, result)
    result.text = " ".join(result.parts)
    return result


def _place(pos: _Position, kind: str, count: int, forecast: Forecast) -> None:
    words = pos.words
    middle = list(pos.view.get("middle") or [])
    next_middle = pos.counters.middle if pos.counters else None
    forecast.middle_after = pos.counted(_add(middle, "m", next_middle, kind, count), kind)
    keep = pos.hand.get(kind, 0) - count
    kept = f"you keep {words.count(keep, kind)}" if keep else f"no {words.plural(kind)} left in your hand"
    forecast.parts.append(f"The middle gets {words.count(count, kind)} ({forecast.middle_after}); {kept}.")
    forecast.parts.append(pos.draw_up(pos.hand_count - count, forecast))
    last = pos.last_card(forecast)
    if last:
        forecast.parts.append(last)
    forecast.parts.append("Next you must steal a set.")


def _steal(pos: _Position, set_id: str, forecast: Forecast) -> None:
    found = pos.find_set(set_id)
    if found is None:
        return
    owner, target = found
    kind, cards = str(target["kind"]), int(target["cards"])
    won = pos.win(set_id, owner, target, forecast)
    forecast.parts.append(
        f"Then roll {dice_word(cards)}, one per card. All pirate heads ({odds(cards)}): {won}.")
    forecast.parts.append(pos.choices_after_blank(kind, pos.hand.get(kind, 0)))
    if pos.closes_game():
        forecast.game_ends = True
        forecast.parts.append(
            "The pile is empty and your turn closes the round: the game ends after this steal.")


def _reroll(pos: _Position, *, paid: bool, forecast: Forecast) -> None:
    steal = pos.steal
    set_id, kind = str(steal["set"]), str(steal["kind"])
    blanks, cards = int(steal["blanks"]), int(steal["cards"])
    heads = cards - blanks
    held = pos.hand.get(kind, 0)
    kept = {0: "no pirate head to keep", 1: "the pirate head stays"}.get(
        heads, f"the {heads} pirate heads stay")
    if paid:
        held -= blanks
        forecast.parts.append(
            f"You discard {pos.words.count(blanks, kind)} for good (you keep {held}) and re-roll "
            f"{dice_word(blanks)}; {kept}.")
    else:
        forecast.points_now = pos.points - 1
        forecast.parts.append(
            f"You turn your captain card over (once per game) and re-roll {dice_word(blanks)} for free; "
            f"{kept}. The unused bonus's +1 is gone: your points {pos.points} → {pos.points - 1}.")
    found = pos.find_set(set_id)
    owner, target = found if found is not None else (None, {"kind": kind, "cards": cards})
    won = pos.win(set_id, owner, target, forecast)
    forecast.parts.append(f"Then roll: all heads ({odds(blanks)}): {won}.")
    options = []
    if held:
        options.append(f"pay again from your {pos.words.count(held, kind)}")
    if paid and not pos.bonus_used:
        options.append("use your captain bonus")
    options.append("stop")
    forecast.parts.append("Any blank: " + _or(options) + ".")


def _stop(pos: _Position, forecast: Forecast) -> None:
    steal = pos.steal
    set_id = str(steal["set"])
    owner = steal.get("owner")
    where = "in the middle" if owner is None else f"with {pos.who(int(owner))}"
    forecast.points_now = pos.points
    forecast.parts.append(f"The steal fails: {set_id} stays {where}; your points stay {pos.points}.")
    forecast.parts.append(pos.draw_up(pos.hand_count, forecast))
    # K-END-1: once the pile is empty, the game ends after the last seat's turn.
    if forecast.pile_after == 0 and pos.seat == pos.players - 1:
        forecast.game_ends = True
        forecast.parts.append("The pile is empty and your turn closes the round: the game ends.")
    else:
        last = pos.last_card(forecast)
        if last:
            forecast.parts.append(last)


def preview(seat: int, action: dict[str, Any], view: dict[str, Any]) -> str | None:
    """The words of ``forecast`` from ``view`` (the mover's own) alone; None when the view
    does not know the move."""
    return forecast(action, view, seat=seat, counters=counters_of(view)).text or None
