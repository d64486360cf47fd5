"""Scopes: what a token may do (issue 37).

A token pasted into a bot, a stats site or a companion app should do what that app needs and no more: a bot that
plays must not delete the account, nor mint itself a sibling that outlives its revocation.  A scope names one kind of
power; a token holds a set of them, and each operation of the API needs one (``service/http/scopes.py`` says which).

The set is small and follows what a player would grant an app, one decision at a time (docs/tokens.md says why each
exists):

- ``play``: take part in games (create, join, act, leave, rematch, table talk) and read them with your hand;
- ``lobby``: find games (challenges, quick-match tickets, open games, tournaments);
- ``profile:read`` / ``profile:write``: your own profile, games, blocks and mutes, as read and as changed;
- ``analysis``: ask for analyses, import replays, your mistakes;
- ``notifications``: your notices: your own feed and inbox, and where they go (web push subscriptions, push devices);
- ``webhook``: set the webhook URL (every notice of yours leaves for the server it names);
- ``tokens``: list, issue and revoke tokens (a stolen token that could mint siblings would outlive its revocation);
- ``moderation``: a moderator's powers (reports, sanctions, the log), never handed to an app by accident;
- ``account:delete``: delete the account, for good.

A token stored before scopes existed has none stored: it keeps every power, today's and any scope added later
(:data:`FULL`), as a token issued with a sign-up does.  Pure: no I/O, no clock.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

#: Every scope, with what it allows (the OpenAPI document's ``oauth2`` scheme shows these words).
SCOPES: dict[str, str] = {
    "play": "Take part in your games: create, join, take steps, leave, rematch, table talk; read them with your hand",
    "lobby": "Find games: challenges, quick-match tickets, open games and tournaments",
    "profile:read": "Read your profile, your games, blocks and notices; search players",
    "profile:write": "Change your profile (name, handle, language, calendar), blocks and mutes; accept terms; report",
    "analysis": "Ask for analyses of games, import replays, read your mistakes",
    "notifications": "Follow your own feed and inbox of notices; manage where they are pushed (web push, push devices)",
    "webhook": "Set or remove your webhook URL (every notice of yours is then sent to the server it names)",
    "tokens": "List, issue and revoke your tokens (never wider than the token asking)",
    "moderation": "Use a moderator's powers: reports, decisions, sanctions and the moderation log",
    "account:delete": "Delete your account, for good",
}

#: A token with every scope: a sign-up's first token, and every token stored before scopes existed.
FULL: frozenset[str] = frozenset(SCOPES)


class UnknownScope(ValueError):
    """A scope this server does not know."""


def granted(stored: Iterable[str] | None) -> frozenset[str]:
    """What a token stored with ``stored`` may do: every scope if it was stored without any (a token made before
    scopes, or a full one), else those of its scopes this server knows (a scope retired since grants nothing)."""
    if stored is None:
        return FULL
    return frozenset(stored) & FULL


def checked(names: Iterable[str]) -> frozenset[str]:
    """``names`` as a set of scopes, or :class:`UnknownScope` naming the first that is none."""
    wanted = frozenset(names)
    for name in sorted(wanted - FULL):
        raise UnknownScope(name)
    return wanted


def beyond(holder: Collection[str], wanted: Iterable[str]) -> list[str]:
    """The scopes of ``wanted`` that ``holder`` lacks, sorted: what a token may not grant another (a token mints
    nothing wider than itself)."""
    return sorted(set(wanted) - set(holder))


def ordered(scopes: Iterable[str]) -> list[str]:
    """``scopes`` in the order of :data:`SCOPES` (the order they are documented and answered in)."""
    held = set(scopes)
    return [name for name in SCOPES if name in held]


def header_value(scopes: Iterable[str]) -> str:
    """The scopes as ``X-OAuth-Scopes`` and RFC 6750's ``scope`` attribute write them: comma-and-space separated in
    the header (as GitHub and Lichess answer), see :func:`ordered`."""
    return ", ".join(ordered(scopes))
