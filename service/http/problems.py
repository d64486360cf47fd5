"""Problems: how a refusal is answered over HTTP — its status and its RFC 9457 problem+json body.

The one mapping from a refusal's code (:mod:`service.common.errors`) to an HTTP
status and title.  A client switches on ``code`` (never on ``detail``, which
is for people); ``GET /v1/problems`` lists them all.  Only the HTTP layer
imports this module.
"""

from __future__ import annotations

from typing import Any

from service.common.errors import Conflict, NotConfirmed, Refused
from service.common.texts import DEFAULT, N_, render, translate
from service.domain.scopes import SCOPES

PROBLEM_JSON = "application/problem+json"

#: code -> (HTTP status, title)
SERVICE_PROBLEMS: dict[str, tuple[int, str]] = {
    "malformed_json": (400, N_("The body is not valid JSON")),
    "malformed_request": (400, N_("The request is not well-formed HTTP")),
    "idempotency_key_not_supported": (400, N_("This operation takes no Idempotency-Key")),
    "invalid_precondition": (400, N_("If-Match must hold a game version")),
    "token_required": (401, N_("This needs a player token (Authorization: Bearer ...)")),
    "invalid_token": (401, N_("The token is not known")),
    "invalid_ticket": (401, N_("The stream ticket is not known, has expired, or is for another game")),
    "api_key_required": (401, N_("This needs a service API key (X-Api-Key)")),
    "not_a_player": (403, N_("You do not hold a seat in this game")),
    "bad_join_code": (403, N_("The join code is wrong")),
    "custom_decks_disabled": (403, N_("This server does not allow custom decks")),
    "not_the_creator": (403, N_("Only the game's creator may do that")),
    "rated_play_needs_history": (403, N_("Rated games are for accounts a day old that have finished a few games")),
    "challenge_refused": (403, N_("That player does not take challenges from you")),
    "rated_play_suspended": (403, N_("You aborted too many rated games lately: rated games are closed to you until then")),
    "terms_not_accepted": (403, N_("Accept the terms of use in force to go on")),
    "player_suspended": (403, N_("Your account is suspended")),
    "player_banned": (403, N_("Your account is banned")),
    "not_a_moderator": (403, N_("This needs the moderator role")),
    "scope_exceeds_token": (403, N_("A token cannot grant scopes it does not hold itself")),
    "player_muted": (403, N_("A moderator muted you at the tables")),
    "not_found": (404, N_("There is nothing here")),
    "report_not_found": (404, N_("No such report")),
    "message_not_found": (404, N_("No such message at that table")),
    "game_not_found": (404, N_("No such game")),
    "token_not_found": (404, N_("You hold no token with this id")),
    "player_not_found": (404, N_("No player has this id or handle")),
    "ladder_not_found": (404, N_("No such ladder (the ladders are basic and advanced)")),
    "player_not_rated": (404, N_("That player is not on this ladder's leaderboard (no established rating)")),
    "match_ticket_not_found": (404, N_("You hold no match ticket with this id")),
    "analysis_not_found": (404, N_("No analysis of this game was requested yet")),
    "method_not_allowed": (405, N_("This method is not allowed here")),
    "not_acceptable": (406, N_("No representation matches the Accept header")),
    "version_conflict": (409, N_("The game moved on since the version you sent")),
    "game_full": (409, N_("Every seat of this game is taken")),
    "table_talk_off": (409, N_("Nobody else at this table reads table talk")),
    "table_talk_full": (409, N_("This table holds as many messages as a table may")),
    "seat_not_open": (409, N_("That seat is taken, or the game has no such seat")),
    "already_seated": (409, N_("You already hold a seat in this game")),
    "game_not_waiting": (409, N_("The game has already started")),
    "game_not_active": (409, N_("The game is not in play")),
    "creator_cannot_leave": (409, N_("You created this game: call it off (DELETE the game) instead of leaving it")),
    "seat_resigned": (409, N_("You resigned from this game; an AI plays your seat")),
    "game_not_finished": (409, N_("The game has not finished: only a finished game is exported, analysed or rematched")),
    "token_limit_reached": (409, N_("You already hold as many tokens as a player may")),
    "game_limit_reached": (409, N_("You are in as many unfinished games as a player may be")),
    "ai_seat_limit_reached": (409, N_("Your games in play hold as many AI seats as a player may have")),
    "handle_taken": (409, N_("Another player has this handle")),
    "block_limit_reached": (409, N_("You have blocked as many players as a player may")),
    "mute_limit_reached": (409, N_("You have muted as many players as a player may")),
    "listed_table_limit_reached": (409, N_("You have as many listed tables waiting for players as a player may")),
    "abort_too_late": (409, N_("Every seat has moved once: the game can no longer be aborted (leave it instead)")),
    "report_already_decided": (409, N_("This report was already decided")),
    "rematch_declined": (409, N_("A player declined the rematch")),
    "rematch_started": (409, N_("Every player wanted the rematch: it has started")),
    "match_ticket_already_open": (409, N_("You already wait for a game of this kind (ticket_id names your ticket)")),
    "match_ticket_limit_reached": (409, N_("You hold as many open match tickets as a player may")),
    "match_ticket_matched": (409, N_("The ticket was matched already (game_id names your game)")),
    "match_pool_busy": (409, N_("Many tickets of this kind were opened at once; try again")),
    "precondition_failed": (412, N_("If-Match holds only weak tags, which never match")),
    "payload_too_large": (413, N_("The request body is too large")),
    "uri_too_long": (414, N_("The request line is too long")),
    "unsupported_media_type": (415, N_("Send the body as application/json")),
    "invalid_request": (422, N_("The request does not match the schema")),
    "invalid_replay": (422, N_("The replay file does not verify")),
    "handle_invalid": (422, N_("A handle is 3 to 20 characters, each an ASCII letter, a digit, _ or -")),
    "handle_reserved": (422, N_("This handle is reserved")),
    "terms_version_mismatch": (422, N_("That is not the version of the terms of use in force")),
    "cannot_report_yourself": (422, N_("You cannot report yourself")),
    "player_not_in_game": (422, N_("That player holds no seat in that game")),
    "handle_not_allowed": (422, N_("This handle holds a word that is not allowed")),
    "name_not_allowed": (422, N_("This name holds a word that is not allowed")),
    "idempotency_key_reused": (422, N_("This Idempotency-Key was used for a different request")),
    "rule_violation": (422, N_("The rules do not allow that")),
    "rate_limited": (429, N_("Too many requests")),
    "headers_too_large": (431, N_("The request's header fields are too large")),
    "too_many_waits": (429, N_("You hold as many open long-polls and streams as a client may")),
    "internal_error": (500, N_("Something went wrong on our side")),
    "oembed_format_not_implemented": (501, N_("This oEmbed format is not served: ask for format=json")),
    "store_unavailable": (503, N_("The event store cannot be reached")),
    # challenges (service/domain/challenges.py)
    "not_challenged": (403, N_("Only a challenged player accepts or declines a challenge")),
    "not_the_challenger": (403, N_("Only the challenger cancels a challenge")),
    "challenge_not_found": (404, N_("No such challenge, or you have no part in it")),
    "challenge_not_open": (409, N_("The challenge is no longer open")),
    "challenge_expired": (409, N_("The challenge has expired")),
    "already_challenged": (409, N_("An open challenge of yours already challenges that player")),
    "challenge_limit_reached": (409, N_("You have as many open challenges as a player may have")),
    "challenge_inbox_full": (409, N_("A player you challenge has as many open challenges as a player may receive")),
    "challenge_cannot_start": (409, N_("A player of the challenge has no room for another game now")),
    "unknown_players": (422, N_("No player has that handle")),
    "cannot_challenge_yourself": (422, N_("You cannot challenge yourself")),
    "player_challenged_twice": (422, N_("A challenge names each player once")),
    "too_many_challenged": (422, N_("A challenge names at most three players")),
    "cannot_block_yourself": (422, N_("You cannot block or mute yourself")),
    "challenge_seats_mismatch": (422, N_("The seats hold a human seat too many or too few for the players challenged")),
    # time controls, vacations, web push (service/domain/deadlines.py, service/domain/calendars.py)
    "no_turn_limit": (409, N_("This game's turns have no time limit")),
    "not_their_turn": (409, N_("Time is given to another player whose turn it is")),
    "give_time_limit_reached": (409, N_("This turn has been given as much time as it may be")),
    "vacation_overlaps": (409, N_("You are on vacation at some of that time already")),
    "vacation_limit_reached": (409, N_("That vacation takes more hours than you have left this year")),
    "push_subscription_limit_reached": (409, N_("You have as many push subscriptions as a player may")),
    "push_subscription_not_found": (404, N_("You have no push subscription with this endpoint")),
    "push_not_configured": (404, N_("This server sends no web push (it has no VAPID key)")),
    "push_endpoint_refused": (422, N_("The push endpoint is not a public https URL")),
    "fcm_not_configured": (404, N_("This server sends no native push (it has no Firebase service account)")),
    "push_device_not_found": (404, N_("You have no push device with this id")),
    "push_device_limit_reached": (409, N_("You have as many push devices as a player may")),
    "webhook_url_refused": (422, N_("The webhook URL is not an http(s) URL of a public host")),
    # tournaments (service/domain/tournaments/)
    "tournament_not_found": (404, N_("No such tournament")),
    "tournament_round_not_found": (404, N_("That round of the tournament has not started")),
    "invalid_tournament_settings": (422, N_("These settings make no tournament")),
    "tournament_over": (409, N_("The tournament is over")),
    "tournament_withdrawn": (409, N_("You withdrew from this tournament; a withdrawal is final")),
    "already_entered": (409, N_("You have entered this tournament already")),
    "entries_not_open": (409, N_("Entries to this tournament are not open yet")),
    "entries_closed": (409, N_("Entries to this tournament are closed")),
    "tournament_full": (409, N_("The tournament is full")),
    "rating_out_of_range": (403, N_("Your rating is outside the tournament's range")),
    "record_too_low": (403, N_("You have finished too few of your recent games for this tournament")),
    "not_entered": (403, N_("You have not entered this tournament")),
    "tournament_round_running": (403, N_("This game's duplicate round is still running; it opens to all when it ends")),
}

#: The engine's refusal codes, all answered with 422.
RULE_CODES: dict[str, str] = {
    "game_not_started": N_("The game has not started yet"),
    "game_over": N_("The game is over"),
    "round_over": N_("The round is over; the next one is being dealt"),
    "not_your_turn": N_("It is not your turn"),
    "card_not_in_hand": N_("That card is not in your hand"),
    "card_not_on_palette": N_("That card is not on that palette"),
    "already_played": N_("You have already played a card this turn"),
    "effect_pending": N_("A card's action must be resolved first"),
    "no_effect_pending": N_("No action is waiting for that choice"),
    "discard_not_winning": N_("That discard would not leave you winning"),
    "place_not_winning": N_("Putting that card on the canvas would not leave you winning"),
    "play_cannot_win": N_("No way of finishing the turn after that play keeps you winning"),
    "take_not_allowed": N_("Your 1 cannot take from that player"),
    "nothing_played": N_("You have not played anything this turn"),
    "unknown_step": N_("That is not a step of a Red7 turn"),
    "step_after_draw": N_("Steps after a draw must wait until you have seen the card"),
}


class ApiError(Refused):
    """A refusal made by the HTTP layer itself (auth, limits, parsing), with headers of its own if it needs them."""

    def __init__(self, code: str, detail: str | None = None, **facts: Any) -> None:
        super().__init__(code, detail or title_of(code), **facts)
        self.headers: dict[str, str] = {}


#: The title of every ``insufficient_scope_<scope>`` (the detail names the scope, and so does the code).
INSUFFICIENT_SCOPE = N_("This token lacks the scope this operation needs")


def scope_code(scope: str) -> str:
    """The problem code of a token without ``scope``: ``insufficient_scope_`` and the scope, ``:`` written ``_``."""
    return "insufficient_scope_" + scope.replace(":", "_")


SERVICE_PROBLEMS.update({scope_code(scope): (403, INSUFFICIENT_SCOPE) for scope in SCOPES})


def status_of(code: str) -> int:
    """The HTTP status a refusal with ``code`` is answered with (the engine's refusals and unknown codes: 422)."""
    return SERVICE_PROBLEMS[code][0] if code in SERVICE_PROBLEMS else 422


def headers_of(refused: Refused) -> dict[str, str]:
    """The headers a refusal's answer carries: the current version's ETag with a conflict, when to retry ..."""
    if isinstance(refused, ApiError):
        return dict(refused.headers)
    if isinstance(refused, Conflict):
        return {"ETag": f'"{refused.current}"'}
    if isinstance(refused, NotConfirmed):
        return {"Retry-After": "1"}
    retry_after = refused.facts.get("retry_after")  # a refusal that ends at a known time (rated_play_suspended)
    if isinstance(retry_after, int) and retry_after > 0:
        return {"Retry-After": str(retry_after)}
    return {}


def detail_of(refused: Refused, language: str = DEFAULT) -> str:
    """What the answer says to people: the refusal's own words, or the code's title when it brought none.

    In another language than English: the refusal's text (:attr:`Refused.text`) if it has one, else the code's title
    in that language (a refusal's free English words are not shown to a reader who asked for another language; its
    facts, such as ``limit``, are members of the problem)."""
    if refused.text is not None:
        return render(refused.text, language)
    if language != DEFAULT:
        return title_of(refused.code, language)
    return refused.detail if refused.detail != refused.code.replace("_", " ").capitalize() else title_of(refused.code)


def title_of(code: str, language: str = DEFAULT) -> str:
    """The code's title, in ``language`` (from its catalog: service/common/locale)."""
    if code in SERVICE_PROBLEMS:
        return translate(SERVICE_PROBLEMS[code][1], language)
    if code in RULE_CODES:
        return translate(RULE_CODES[code], language)
    return code.replace("_", " ").capitalize()


def problem(
    code: str, status: int, detail: str, instance: str | None = None, *, language: str = DEFAULT, **extra: Any
) -> dict[str, Any]:
    """The problem+json body, its title in ``language`` (``detail`` comes written in it)."""
    body: dict[str, Any] = {
        "type": f"/v1/problems#{code}",
        "title": title_of(code, language),
        "status": status,
        "detail": detail,
        "code": code,
    }
    if instance:
        body["instance"] = instance
    body.update(extra)
    return body


def catalogue(language: str = DEFAULT) -> list[dict[str, Any]]:
    """Every problem code with its status and title (in ``language``), for ``GET /v1/problems``."""
    out = [{"code": c, "status": s, "title": translate(t, language)} for c, (s, t) in SERVICE_PROBLEMS.items()]
    out += [{"code": c, "status": 422, "title": translate(t, language)} for c, t in RULE_CODES.items()]
    return out
