"""Exceptions shared by every rule set.

Messages are written for players: the web layer shows them as they are.
"""

from __future__ import annotations


class IllegalAction(Exception):
    """An action that the rules refuse in the current state."""


class InvalidOptions(ValueError):
    """Bad arguments or options for a new game."""


class CardSetError(InvalidOptions):
    """A card set that breaks the rule set's structure rules.

    ``problems`` lists every problem found, so an editor of a custom card set can fix them
    all in one go.
    """

    def __init__(self, card_set_id: str, problems: list[str]) -> None:
        self.card_set_id = card_set_id
        self.problems = list(problems)
        super().__init__(f"Card set {card_set_id!r} is invalid: " + "; ".join(self.problems))


class UnknownRules(ValueError):
    """A rule set id or version that this engine does not provide."""


class InvalidSnapshot(ValueError):
    """A dumped state that cannot be loaded."""
