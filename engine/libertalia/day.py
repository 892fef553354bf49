"""The reveal that ends a Sunrise (L-SUN-2) and the Day (L-DAY), with every Day effect of
L-CHAR and the Day decisions (L-DEC-3).

Each effect is a function keyed by rank. A decision is offered through :func:`offer`: with
two or more choices its owner is asked; with one the engine takes it (L-DEC-5); with none the
part is skipped (L-ZONE-6).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.libertalia.characters import KIND_INDEX, OFFICER, effect
from engine.libertalia.moves import Move, move_of
from engine.libertalia.options import OFFERS, options
from engine.libertalia.state import DAY, NOBODY
from engine.libertalia.working_copy import PARROT_SHOWS, SPY_DRAWS, SURGEON_SECRET, Log, Table, doubloons

BEGGAR_PAY = effect(3, "day")["n"]
MONKEY_KIND = KIND_INDEX[effect(2, "day")["kind"]]
FRENCH_GAIN = effect(10, "day")["n"]
FRENCH_BELOW = effect(10, "day")["threshold"]
VOODOO_PER = effect(11, "day")["n"]
GUNNER_PAY = effect(15, "day")["pay"]
BOSUN_PER = effect(19, "day")["n"]
BOSUN_BELOW = effect(19, "day")["rank"]
GAMBLER_PER = effect(24, "day")["n"]
QUARTERMASTER_PER = effect(26, "day")["n"]
CAPTAIN_GAIN = effect(29, "day")["n"]
PARROT_RANK = 1
_GAIN = dict(OFFERS)

Effect = Callable[[Table, Log, int, int], None]
Answer = Callable[[Table, Log, int, Move], None]


def reveal(t: Table, log: Log) -> None:
    """L-SUN-2: every chosen card goes on the ship at its key."""
    for seat, rank in enumerate(t.picks):
        t.board(seat, rank)
    t.picks = [0] * t.players
    t.phase = DAY
    t.actor = NOBODY
    t.decision = ""
    if not log.text:
        return
    ship = ", ".join(f"{t.character(s, r)} ({r})" for s, r in t.ship)
    log.add(f"The cards are revealed; on the ship, left to right: {ship}.")


def next_turn(t: Table, log: Log) -> bool:
    """L-DAY-1: give the lowest character that has not had its turn its Day turn; False when
    every one has. Characters enter the ship only right of the turn (L-DAY-2), so "has not
    had its turn" is "its key is above the last turn's"."""
    influence = t.chars.influence
    colours = t.colours
    actor = t.actor
    after = actor[1] * 8 + influence[colours[actor[0]]][actor[1]] if actor != NOBODY else 0
    for seat, rank in t.ship:
        if rank * 8 + influence[colours[seat]][rank] > after:  # the key (L-ORD-1)
            t.actor = (seat, rank)
            found = DAY_EFFECTS.get(rank)
            if found is not None:
                found(t, log, seat, rank)
            return True
    return False


def _asked(t: Table, log: Log, seat: int, rest: str) -> str:
    """The sentence that says ``seat`` is asked; "" for a silent log."""
    return t.name(seat) + rest if log.text else ""


def offer(t: Table, log: Log, seat: int, decision: str, asked: str) -> None:
    """Ask ``seat`` (``asked`` tells everyone what is asked, never the choices), or decide
    at once when there is only one choice (L-DEC-5)."""
    choices = options(t, decision, seat)
    if len(choices) >= 2:
        t.decision = decision
        log.add(asked)  # a silent log drops it
    elif choices:
        ANSWERS[decision](t, log, seat, move_of(choices[0]))


# L-CHAR-1
def parrot(t: Table, log: Log, seat: int, rank: int) -> None:
    t.discard_from_ship((seat, rank))
    if not t.hands[seat]:
        raise AssertionError("L-CAMP-5: a Parrot acts with an empty hand")
    if log.text:
        log.add(f"{t.character(seat, rank)} goes to {t.name(seat)}'s graveyard.")
    offer(t, log, seat, "parrot", _asked(t, log, seat, " must choose a card to put on the ship."))


def answer_parrot(t: Table, log: Log, seat: int, move: Move) -> None:
    t.hand(seat).remove(move.rank)
    t.board(seat, move.rank)
    log.reveal(PARROT_SHOWS)
    if log.text:
        log.add(f"{t.name(seat)} puts {t.card(move.rank)} on the ship.")


# L-CHAR-2
def monkey(t: Table, log: Log, seat: int, rank: int) -> None:
    count = t.booty[seat][MONKEY_KIND]
    left = (seat - 1) % t.players
    if count:
        t.purse(seat)[MONKEY_KIND] = 0
        t.purse(left)[MONKEY_KIND] += count
    if log.text:
        log.add(f"{t.character(seat, rank)} passes {t.token(MONKEY_KIND, count)} to {t.name(left)}.")


# L-CHAR-3
def beggar(t: Table, log: Log, seat: int, rank: int) -> None:
    payer, top = t.highest()
    if (payer, top) == (seat, rank):
        if log.text:
            log.add(f"{t.character(seat, rank)} is the highest character on the ship, so nobody pays.")
        return
    paid = t.lose(payer, BEGGAR_PAY)
    t.gain(seat, paid)
    if log.text:
        log.add(
            f"{t.character(seat, rank)}: {t.name(payer)}, owner of the highest character "
            f"({t.chars.name[top]}), pays {t.name(seat)} {doubloons(paid)}."
        )


# L-CHAR-4
def recruiter(t: Table, log: Log, seat: int, rank: int) -> None:
    if not t.dens[seat]:
        if log.text:
            log.add(f"{t.character(seat, rank)} finds {t.name(seat)}'s den empty.")
        return
    offer(t, log, seat, "recruit", _asked(t, log, seat, " must choose a character of the den to take back."))


def answer_recruit(t: Table, log: Log, seat: int, move: Move) -> None:
    t.den(seat).remove(move.rank)
    t.to_hand(seat, move.rank)
    if log.text:
        log.add(f"{t.name(seat)}'s Recruiter takes {t.card(move.rank)} from the den back into the hand.")


# L-CHAR-6
def preacher(t: Table, log: Log, seat: int, rank: int) -> None:
    if t.held(seat) < 2:
        if log.text:
            log.add(
                f"{t.character(seat, rank)}: {t.name(seat)} holds fewer than 2 tokens, nothing to discard."
            )
        return
    offer(t, log, seat, "keep", _asked(t, log, seat, " must choose the kind of token to keep one of."))


def answer_keep(t: Table, log: Log, seat: int, move: Move) -> None:
    gone = list(t.booty[seat])
    gone[move.booty] -= 1
    for kind, count in enumerate(gone):
        if count:
            t.to_bag(seat, kind, count)
    if log.text:
        log.add(f"{t.name(seat)}'s Preacher keeps {t.token(move.booty)} and discards {t.tokens(gone)}.")


# L-CHAR-9 (L-DBL-1: the loss is rounded down)
def carpenter(t: Table, log: Log, seat: int, rank: int) -> None:
    lost = t.lose(seat, t.doubloons[seat] // 2)
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} loses half, {doubloons(lost)}.")


# L-CHAR-10
def french_officer(t: Table, log: Log, seat: int, rank: int) -> None:
    if t.doubloons[seat] < FRENCH_BELOW:
        t.gain(seat, FRENCH_GAIN)
        if log.text:
            log.add(f"{t.character(seat, rank)}: {t.name(seat)} gains {doubloons(FRENCH_GAIN)}.")
    elif log.text:
        log.add(
            f"{t.character(seat, rank)}: {t.name(seat)} holds {FRENCH_BELOW} doubloons or more "
            "and gains nothing."
        )


# L-CHAR-11
def voodoo_witch(t: Table, log: Log, seat: int, rank: int) -> None:
    dead = len(t.graves[seat])
    gained = t.gain(seat, VOODOO_PER * dead)
    if log.text:
        log.add(
            f"{t.character(seat, rank)}: {dead} in {t.name(seat)}'s graveyard, "
            f"{t.name(seat)} gains {doubloons(gained)}."
        )


# L-CHAR-14
def brute(t: Table, log: Log, seat: int, rank: int) -> None:
    victim = t.highest()
    t.discard_from_ship(victim)
    if not log.text:
        return
    who = t.character(seat, rank)
    if victim == (seat, rank):
        log.add(f"{who} is the highest character on the ship and discards itself.")
    else:
        log.add(f"{who} discards {t.character(*victim)} from the ship.")


# L-CHAR-15
def gunner(t: Table, log: Log, seat: int, rank: int) -> None:
    paid = t.lose(seat, GUNNER_PAY)
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} pays {doubloons(paid)}.")
    if not any(t.dens):
        log.add("Every den is empty, so nothing is discarded.")
        return
    offer(t, log, seat, "gunner", _asked(t, log, seat, " must choose a character in a den to discard."))


def answer_gunner(t: Table, log: Log, seat: int, move: Move) -> None:
    t.discard_from_den(move.seat, move.rank)
    if log.text:
        log.add(f"{t.name(seat)}'s Gunner discards {t.character(move.seat, move.rank)} from its den.")


# L-CHAR-17
def spanish_spy(t: Table, log: Log, seat: int, rank: int) -> None:
    count = t.booty[seat][OFFICER]
    if not count:
        if log.text:
            log.add(f"{t.character(seat, rank)}: {t.name(seat)} holds no Spanish officer.")
        return
    t.to_bag(seat, OFFICER, count)
    log.reveal(SPY_DRAWS)
    drawn = [0] * len(t.bag)
    bag = t.bag_w()
    purse = t.purse(seat)
    for _ in range(count):
        kind = draw(t)
        bag[kind] -= 1
        purse[kind] += 1
        drawn[kind] += 1
    if not log.text:
        return
    who = t.character(seat, rank)
    log.add(f"{who} returns {t.token(OFFICER, count)} to the bag; {t.name(seat)} draws {t.tokens(drawn)}.")


def draw(t: Table) -> int:
    """L-RNG-1: one token at random from the bag listed in booty_order, unless the option
    ``draws`` fixes it (L-RNG-2). A fixed kind that is not in the bag then is used up and the
    generator draws instead."""
    if t.fixed_draws:
        kind, t.fixed_draws = t.fixed_draws[0], t.fixed_draws[1:]
        if t.bag[kind]:
            return kind
    tokens = t.bag_list()
    return tokens[t.rng().randrange(len(tokens))]


# L-CHAR-19
def bosun(t: Table, log: Log, seat: int, rank: int) -> None:
    low = sum(1 for r in t.dens[seat] if r < BOSUN_BELOW)
    gained = t.gain(seat, BOSUN_PER * low)
    if log.text:
        log.add(
            f"{t.character(seat, rank)}: {low} in the den below {BOSUN_BELOW}, "
            f"{t.name(seat)} gains {doubloons(gained)}."
        )


# L-CHAR-21
def merchant(t: Table, log: Log, seat: int, rank: int) -> None:
    if max(t.booty[seat]) < OFFERS[0][0]:
        if log.text:
            log.add(f"{t.character(seat, rank)}: {t.name(seat)} holds no {OFFERS[0][0]} tokens of one kind.")
        return
    offer(t, log, seat, "sell", _asked(t, log, seat, " must choose what to sell."))


def answer_sell(t: Table, log: Log, seat: int, move: Move) -> None:
    gain = _GAIN[move.number]
    t.to_bag(seat, move.booty, move.number)
    t.gain(seat, gain)
    if log.text:
        log.add(f"{t.name(seat)}'s Merchant sells {t.token(move.booty, move.number)} for {doubloons(gain)}.")


# L-CHAR-22
def surgeon(t: Table, log: Log, seat: int, rank: int) -> None:
    if not t.graves[seat]:
        if log.text:
            log.add(f"{t.character(seat, rank)} finds {t.name(seat)}'s graveyard empty.")
        return
    offer(
        t,
        log,
        seat,
        "revive",
        _asked(t, log, seat, " must choose a character of the graveyard to take back."),
    )


def answer_revive(t: Table, log: Log, seat: int, move: Move) -> None:
    """Which card returns is the owner's secret (L-CHAR-22, L-ZONE-1)."""
    t.grave(seat).remove(move.rank)
    t.to_hand(seat, move.rank)
    log.reveal(SURGEON_SECRET)
    if log.text:
        log.add(
            f"{t.name(seat)}'s Surgeon returns a card from the graveyard to {t.name(seat)}'s hand.",
            {seat: f"Your Surgeon returns {t.card(move.rank)} from your graveyard to your hand."},
        )


# L-CHAR-24
def gambler(t: Table, log: Log, seat: int, rank: int) -> None:
    lost = t.lose(seat, GAMBLER_PER * t.held(seat))
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} loses {doubloons(lost)}.")


# L-CHAR-26
def quartermaster(t: Table, log: Log, seat: int, rank: int) -> None:
    gained = t.gain(seat, QUARTERMASTER_PER * t.held(seat))
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} gains {doubloons(gained)}.")


# L-CHAR-29
def captain(t: Table, log: Log, seat: int, rank: int) -> None:
    t.gain(seat, CAPTAIN_GAIN)
    if log.text:
        log.add(f"{t.character(seat, rank)}: {t.name(seat)} gains {doubloons(CAPTAIN_GAIN)}.")


# L-CHAR-30
def spanish_governor(t: Table, log: Log, seat: int, rank: int) -> None:
    den = list(t.dens[seat])
    for victim in den:
        t.discard_from_den(seat, victim)
    if not log.text:
        return
    who = t.character(seat, rank)
    if den:
        names = ", ".join(t.chars.name[r] for r in den)
        log.add(f"{who} discards every character of {t.name(seat)}'s den: {names}.")
    else:
        log.add(f"{who} finds {t.name(seat)}'s den empty.")


DAY_EFFECTS: dict[int, Effect] = {
    1: parrot,
    2: monkey,
    3: beggar,
    4: recruiter,
    6: preacher,
    9: carpenter,
    10: french_officer,
    11: voodoo_witch,
    14: brute,
    15: gunner,
    17: spanish_spy,
    19: bosun,
    21: merchant,
    22: surgeon,
    24: gambler,
    26: quartermaster,
    29: captain,
    30: spanish_governor,
}

ANSWERS: dict[str, Answer] = {
    "parrot": answer_parrot,
    "recruit": answer_recruit,
    "keep": answer_keep,
    "gunner": answer_gunner,
    "sell": answer_sell,
    "revive": answer_revive,
}
