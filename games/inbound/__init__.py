"""Playing by mail: replies to the service's emails are moves.

The signed Reply-To addresses (``games.emails.addresses``) and the numbered moves of a turn
email (``games.emails.replies``) belong to the outgoing mail; this package reads what comes
back:
- ``parse``: reading an incoming message: automatic replies, the sender, the reply's own text
  (quotes, attributions and signatures removed wherever they are) and the command in it.
- ``authentication``: whether the receiving mail server vouches for the From address
  (Authentication-Results from ``INBOUND_TRUSTED_AUTHSERV_ID`` only).
- ``handle``: what a reply does, through the same services as the web (``action_submit``,
  ``invitation_accept``), and which answer it gets.
- ``answers``: the answer emails, sent once each through ``games.emails``.
- ``webhooks`` and ``compose``: the hosted providers' inbound webhooks (django-anymail) and
  the development outbox's reply box. ``manage.py mail_ingest`` is the MTA pipe.
"""
