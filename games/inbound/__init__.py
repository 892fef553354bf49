"""Playing by mail: replies to the service's emails are moves (issue 16).

- ``addresses``: the signed Reply-To addresses of turn emails (game, seat, seq) and of
  invitations.
- ``moves``: a seat's legal moves numbered the way its table groups them, recomputed from
  the state at a seq, so a number in a reply maps back to one action without storing anything.
- ``parse``: reading an incoming message: automatic replies, the sender, the reply's own text
  (quotes and signature removed by mail-parser-reply) and the command in it.
- ``handle``: what a reply does, through the same services as the web (``action_submit``,
  ``invitation_accept``), and which answer it gets.
- ``answers``: the answer emails, sent once each through ``games.emails``.
- ``webhooks`` and ``compose``: the hosted providers' inbound webhooks (django-anymail) and
  the development outbox's reply box. ``manage.py mail_ingest`` is the MTA pipe.
"""
