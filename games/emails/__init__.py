"""The emails the service sends: who gets which, what they say, and sending each exactly once.

Every email is rendered from two templates, ``templates/emails/<kind>.txt`` and ``.html``, and
carries ``List-Unsubscribe`` / ``List-Unsubscribe-Post`` headers plus a one-click unsubscribe
link in the body (except an invitation to an address without an account: there is nothing to
unsubscribe from yet).

Who gets what (``PlayerProfile.notify``; no profile means ``each_turn``):

- ``each_turn``: "your turn" and reminder emails, plus the game emails below.
- ``daily_digest``: no per-turn emails; one digest a day listing the games waiting for them,
  plus the game emails below.
- ``none``: no turn, reminder, digest or game emails. Invitations still go: they are
  addressed to an email address, not to a player's preferences.

Game emails (a timeout, a seat handed to a bot, game over) go to every person seated in the
game whose preference is not ``none``.

Sending is idempotent: a ``Notification`` row keyed (user, game, kind, key) is created before
the email goes out and ``sent_at`` is set once the mail server took it. A sender claims the
row in a short transaction and talks to the mail server with no lock or transaction open; a
duplicated or retried task finds the row sent, or claimed and backs off (see ``sending``).
Every email's Message-ID is fixed by its row, so a resend after a crash is the same message.

Turn emails and reminders are for one turn, the game's seq: each goes only to a seat to act
at that seq, and only while the game is still there, checked in the claiming transaction
under a share lock on the game row (a move waits for that check, never for the mail server).
An email for a turn that has passed is dropped, so the player's next turn email is not held
back by it.

The package is split by job: ``unsubscribe``, ``rendering``, ``sending`` (exactly once),
``turns`` (turn emails and reminders), ``game_events``, ``digest`` and ``invitations``; this
module names everything callers use.
"""

from __future__ import annotations

from games.emails.digest import (  # noqa: F401
    digest_key,
    digest_recipients,
    send_digest,
)
from games.emails.game_events import (  # noqa: F401
    _event_and_seat,
    _seated_people,
    _send_to_everyone,
    final_scores,
    send_game_over_emails,
    send_seat_to_bot_emails,
    send_timeout_emails,
)
from games.emails.invitations import (  # noqa: F401
    invitation_url,
    send_invitation_now,
)
from games.emails.rendering import (  # noqa: F401
    MAX_SENTENCES,
    OWN_MOVE_KINDS,
    Summary,
    _game_context,
    _local,
    event_text,
    game_url,
    last_own_move,
    render,
    replay_url,
    summary,
)
from games.emails.sending import (  # noqa: F401
    SEND_ERRORS,
    Kind,
    SendInProgress,
    deliver_once,
    message_id,
    message_id_domain,
    notification_message_id,
    with_message_id,
)
from games.emails.turns import (  # noqa: F401
    _game_at,
    _people_to_act,
    send_reminders,
    send_turn_emails,
)
from games.emails.unsubscribe import (  # noqa: F401
    UNSUBSCRIBE_SALT,
    Notify,
    preference,
    unsubscribe_token,
    unsubscribe_url,
    user_for_unsubscribe_token,
)
