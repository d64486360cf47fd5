"""What a notice says: each kind's title and body, as stable codes rendered in the receiving player's language.

A webhook's event and a web push carry the same texts (``service.application.notices`` puts them in); the client's
service worker shows a push's.  The codes are the catalogs' (``service.common.texts``), so a text is translated once.
"""

from __future__ import annotations

from typing import Any

from service.common.texts import message, say, supported
from service.domain.challenges import CHALLENGE_NOTICES
from service.domain.tournaments import TOURNAMENT_NOTICES

#: Notifications about the turn being played: sent only while it is still being played (the game at their version).
REMINDERS = frozenset({"turn_reminder", "last_hour_reminder"})


#: What a push (or a webhook) says, by kind: the codes of its title and body (the client's service worker shows them),
#: said in the receiving player's language (``Player.language``; English if they chose none).
PUSH_TEXT: dict[str, tuple[str, str]] = {
    "your_turn": (message("push.your_turn.title", "Your turn"), message("push.your_turn.body", "It is your turn to play.")),
    "turn_reminder": (
        message("push.turn_reminder.title", "Your turn is running out"),
        message("push.turn_reminder.body", "A fifth of your time to move is left."),
    ),
    "last_hour_reminder": (
        message("push.last_hour_reminder.title", "One hour left"),
        message("push.last_hour_reminder.body", "Your turn times out in an hour."),
    ),
    "game_finished": (
        message("push.game_finished.title", "Game over"),
        message("push.game_finished.body", "A game of yours has finished."),
    ),
    "game_aborted": (
        message("push.game_aborted.title", "Game aborted"),
        message("push.game_aborted.body", "A game of yours was aborted."),
    ),
    "match_found": (
        message("push.match_found.title", "Match found"),
        message("push.match_found.body", "A game has been found for you."),
    ),
    "challenge_received": (
        message("push.challenge_received.title", "You are challenged"),
        message("push.challenge_received.body", "A player challenges you to a game."),
    ),
    "challenge_accepted": (
        message("push.challenge_accepted.title", "Challenge accepted"),
        message("push.challenge_accepted.body", "A player accepted a challenge."),
    ),
    "challenge_declined": (
        message("push.challenge_declined.title", "Challenge declined"),
        message("push.challenge_declined.body", "A player declined a challenge."),
    ),
    "rematch_offered": (
        message("push.rematch_offered.title", "Rematch?"),
        message("push.rematch_offered.body", "A player offers you a rematch."),
    ),
    "rematch_started": (
        message("push.rematch_started.title", "Rematch"),
        message("push.rematch_started.body", "Your rematch has started."),
    ),
    "table_talk": (
        message("push.table_talk.title", "Table talk"),
        message("push.table_talk.body", "A player said something at your table."),
    ),
    "tournament_entered": (
        message("push.tournament_entered.title", "Entry confirmed"),
        message("push.tournament_entered.body", "You have entered a tournament."),
    ),
    "tournament_round_started": (
        message("push.tournament_round_started.title", "New round"),
        message("push.tournament_round_started.body", "A round of your tournament has started: your game is ready."),
    ),
    "tournament_withdrawn": (
        message("push.tournament_withdrawn.title", "Withdrawn from a tournament"),
        message("push.tournament_withdrawn.body", "Your turns timed out too often: an AI plays your seats from now on."),
    ),
    "tournament_round_closed": (
        message("push.tournament_round_closed.title", "Round over"),
        message("push.tournament_round_closed.body", "A round of your tournament has ended. See the standings."),
    ),
    "tournament_finished": (
        message("push.tournament_finished.title", "Tournament over"),
        message("push.tournament_finished.body", "A tournament you played in has finished. See the final standings."),
    ),
}
OTHER_TITLE = message("push.other.title", "Red7")
OTHER_BODY = message("push.other.body", "Something happened in a game of yours.")


def notice_texts(kind: str, language: str | None) -> dict[str, Any]:
    """A notice's title and body: each as a code (``title_code``, ``body_code``) and in ``language`` (``lang``)."""
    title, body = PUSH_TEXT.get(kind, (OTHER_TITLE, OTHER_BODY))
    lang = supported(language)
    return {"lang": lang, "title": say(title, lang), "body": say(body, lang), "title_code": title, "body_code": body}


def notice_fields(
    kind: str, subject_id: str, version: int, game_id: str | None, language: str | None, notification_id: str | None
) -> dict[str, Any]:
    """What every notice says, by webhook, by push and in the player's feed alike: its code (``event``), what it is
    about (``challenge_id`` for a challenge's, ``tournament_id`` for a tournament's, with ``game_id`` once either names
    one; else ``game_id``), the version it was sent at, its texts in ``language`` and its ``notification_id`` in the
    player's feed (an app told by more than one way keeps one)."""
    about = "challenge_id" if kind in CHALLENGE_NOTICES else "tournament_id" if kind in TOURNAMENT_NOTICES else "game_id"
    fields: dict[str, Any] = {"event": kind, about: subject_id, "version": version}
    if game_id and game_id != subject_id:
        fields["game_id"] = game_id
    fields.update(notice_texts(kind, language))
    if notification_id:
        fields["notification_id"] = notification_id
    return fields
