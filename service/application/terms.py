"""The terms of use: the version an operator sets, accepted at sign-up, and asked for again when it changes.

With ``terms_version`` set, signing up needs ``accept_terms`` equal to it (``terms_not_accepted`` otherwise, naming the
address, and nobody is made); a player who accepted an earlier version (or none: signed up before there were terms) is
answered ``terms_not_accepted`` on every call (:class:`~service.application.standing.Gate`) until they accept the
current one (``acceptTerms``).  Without the setting there are no terms and nothing is asked or stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.common.errors import Refused
from service.common.texts import MESSAGES, Text, message
from service.storage.moderation import ModerationStore

#: Where the sample terms are served (the embedded run's, and any server's without ``terms_url``).
SAMPLE_PATH = "/terms"

NOT_ACCEPTED = message(
    "problem.terms_not_accepted.detail",
    "Read the terms of use at %(terms_url)s and accept version %(terms_version)s to go on.",
)
OTHER_VERSION = message(
    "problem.terms_version_mismatch.detail",
    "The terms of use in force are version %(terms_version)s: read them at %(terms_url)s and accept that one.",
)


@dataclass(frozen=True, slots=True)
class TermsInForce:
    """The terms players accept: ``version`` (empty: none) and where they are read."""

    version: str
    url: str


def _refused(code: str, text: str, terms: TermsInForce) -> Refused:
    params = {"terms_url": terms.url, "terms_version": terms.version}
    refused = Refused(code, MESSAGES[text].singular % params, **params)
    refused.text = Text(text, params)
    return refused


class Terms:
    """The terms in force, and each player's acceptance of them."""

    def __init__(self, store: ModerationStore, version: str = "", url: str = "", public_url: str = "") -> None:
        self.store = store
        self.in_force = TermsInForce(version, url or f"{public_url.rstrip('/')}{SAMPLE_PATH}")

    @property
    def version(self) -> str:
        return self.in_force.version

    def not_accepted(self) -> Refused:
        """What a player who has not accepted the terms in force is answered (``403 terms_not_accepted``)."""
        return _refused("terms_not_accepted", NOT_ACCEPTED, self.in_force)

    def check_sign_up(self, accepted: str | None) -> None:
        """Refuse a sign-up that does not accept the terms in force (nothing to accept: nothing refused)."""
        if self.version and accepted != self.version:
            raise self.not_accepted()

    def signed_up(self, player_id: str) -> None:
        """Keep that a new player accepted the terms in force (at sign-up)."""
        if self.version:
            self.store.accept_terms(player_id, self.version)

    def accept(self, player_id: str, version: str) -> TermsInForce:
        """``player_id`` accepts ``version``: it must be the one in force (``terms_version_mismatch``: they read another)."""
        if version != self.version:
            raise _refused("terms_version_mismatch", OTHER_VERSION, self.in_force)
        self.store.accept_terms(player_id, version)
        return self.in_force
