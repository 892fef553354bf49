"""When a decision sent for an older seq is still the seat's decision now.

Where several seats decide at once (``Rules.simultaneous``: Libertalia's Sunrise picks and
Waitress questions, classic Pirates' challenge question), each seat's decision is its own:
another seat's pick moves the game's seq on without changing anything this seat sees or may
do. So a decision sent with the seq its player read is not stale merely because the game's
seq has moved past it. It is still this seat's decision when, since that seq:

- every event appended is another seat's decision of the same step (a person's action or a
  bot's move by another seat): nothing by this seat (its own move, a timeout, the seat handed
  to a bot), no take-back, no forced pass, nothing of the system;
- the seat was to act after that seq and after every event since;
- its legal actions now are the very list they were after that seq.

Anything else is an older position: the move is stale. The rule is computed from the event
log (the state after the seq read, then the events since applied one by one), and only when
the seq sent is not the latest, so an ordinary move costs nothing more. The API, the site and
replies by email all meet it through ``action_submit``; a reply that names no move asks it
directly (``decision_unchanged``) to tell "stale" from "wrong number".
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games import rows
from games.models import Event, Game
from games.read.state import apply_events, load_state, load_state_after, rules_for

# Kinds of another seat's decision that leave this seat's decision as it was. A timeout's
# move is left out: the deadline of a simultaneous step is shared, so a timeout there is the
# step ending for everyone still to act.
OTHER_SEATS_DECISIONS = (Event.Kind.ACTION, Event.Kind.BOT)
# Past this many events since the seq read, one indexed query looks for an event that breaks
# the decision before any event is loaded: a long-past seq is refused at once. Within it (the
# other seats of one step), the events are loaded in one query and checked here.
FEW_EVENTS = 16


def decision_unchanged(game: Game, position: int, seq_read: int) -> bool:
    """Whether seat ``position``'s decision, as it stood after event ``seq_read``, is still
    its decision in ``game`` now (see the module's rule). True when ``seq_read`` is the latest
    seq and the seat is to act; False for a seq the game never had. Reads ``game`` as given:
    the caller holds the game lock when the answer decides a move."""
    return decision_state(game, position, seq_read) is not None


def decision_state(game: Game, position: int, seq_read: int) -> Any | None:
    """The game's latest state if seat ``position``'s decision after ``seq_read`` is still
    its decision (``decision_unchanged``), else None. The state is replayed from the one
    after ``seq_read`` (cached when that was the latest, ``load_state_after``), so a move that
    passes the check does not load the latest again."""
    if seq_read < 1 or seq_read > game.seq:
        return None
    rules = rules_for(game)
    if seq_read == game.seq:
        state = load_state(game)
        return state if position in rules.to_act(state) else None
    if not rules.simultaneous:
        return None
    since = game.seq - seq_read
    if since > FEW_EVENTS:
        breaking = Q(seat=position) | Q(seat__isnull=True) | ~Q(kind__in=OTHER_SEATS_DECISIONS)
        if Event.objects.filter(breaking, game=game, seq__gt=seq_read, seq__lte=game.seq).exists():
            return None
    # The event read and every one since, oldest first, in one prepared statement: this runs
    # under the game lock for every pick but a step's first.
    read, *events = reversed(rows.latest_events(game.pk, seq_read - 1, game.seq, since + 1))
    if any(_breaks(event, position) for event in events):
        return None
    state = load_state_after(game, read)
    if position not in rules.to_act(state):
        return None
    offered = rules.legal_actions(state, position)
    for event in events:
        state = apply_events(rules, state, [event])
        if position not in rules.to_act(state):
            return None
    return state if rules.legal_actions(state, position) == offered else None


def _breaks(event: Event, position: int) -> bool:
    """Whether ``event`` ends seat ``position``'s decision (the ``breaking`` query's test)."""
    return event.seat == position or event.seat is None or event.kind not in OTHER_SEATS_DECISIONS
