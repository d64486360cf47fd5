"""Which scope each operation needs: the one table, keyed by operationId (issue 37; the scopes are
:mod:`service.domain.scopes`, docs/tokens.md says why each operation has the one it has).

A new operation adds one line here.  ``PUBLIC`` marks an operation no token is asked for (a token sent there is
ignored, and needs no scope).  An operation missing from the table is refused to every token that lacks any scope
(only a full token passes), and ``tests/service/http/test_scopes.py`` fails until it has its line.

An operation whose token is optional (a game's view, its feeds, a replay, a tournament round: without a token the
spectator's view) names the scope a token sent there needs: with the token you see your hand.
"""

from __future__ import annotations

from typing import Final

#: An operation no token is asked for.
PUBLIC: Final = None

#: operationId -> the scope a token needs for it (``PUBLIC``: none is asked for).
OPERATION_SCOPES: dict[str, str | None] = {
    # --- public: no token asked for --------------------------------------------------------------
    "createPlayer": PUBLIC,  # sign-up: where a token comes from (an API key, on servers that have them)
    "getPlayer": PUBLIC,
    "getPushKey": PUBLIC,
    "listTournaments": PUBLIC,
    "getTournament": PUBLIC,
    "getTournamentStandings": PUBLIC,
    "getTerms": PUBLIC,
    "exportReplay": PUBLIC,
    "viewReplay": PUBLIC,
    "getImportedReplay": PUBLIC,
    "viewImportedReplay": PUBLIC,
    "getAnalysis": PUBLIC,
    "getImportedAnalysis": PUBLIC,
    "getLeaderboard": PUBLIC,
    "listLiveGames": PUBLIC,  # the games anyone may watch (a spectator's view and feeds watch them)
    "getOEmbed": PUBLIC,  # asked by the blogs and forums a viewer's link is pasted in
    "getGameStatistics": PUBLIC,  # everyone's: the same for everyone
    "listProblems": PUBLIC,
    "listRules": PUBLIC,
    "getHealth": PUBLIC,
    "getReadiness": PUBLIC,
    # --- play: your games ------------------------------------------------------------------------
    "createGame": "play",
    "getGame": "play",  # token optional
    "cancelGame": "play",
    "leaveGame": "play",
    "joinGame": "play",
    "abortGame": "play",
    "offerRematch": "play",
    "declineRematch": "play",
    "giveTime": "play",
    "act": "play",
    "listEvents": "play",  # token optional
    "streamEvents": "play",  # token optional
    "createStreamTicket": "play",
    "getReplay": "play",  # token optional
    "listTableTalk": "play",
    "sayAtTable": "play",
    "getTournamentRound": "play",  # token optional: with one, your table
    # --- lobby: finding games --------------------------------------------------------------------
    "listOpenGames": "lobby",
    "listChallenges": "lobby",
    "createChallenge": "lobby",
    "getChallenge": "lobby",
    "cancelChallenge": "lobby",
    "acceptChallenge": "lobby",
    "declineChallenge": "lobby",
    "createMatchTicket": "lobby",
    "getMatchTicket": "lobby",
    "cancelMatchTicket": "lobby",
    "createTournament": "lobby",
    "joinTournament": "lobby",
    "withdrawFromTournament": "lobby",
    # --- profile ---------------------------------------------------------------------------------
    "getMe": "profile:read",
    "listMyGames": "profile:read",
    "listPlayerGames": "profile:read",  # token optional: with one, your own archive even hidden
    "exportPlayerGames": "profile:read",  # token optional: the same
    "getPlayerStatistics": "profile:read",  # token optional: with one, your own statistics even with the archive hidden
    "searchPlayers": "profile:read",
    "listBlocks": "profile:read",
    "listNotices": "profile:read",
    "updateMe": "profile:write",  # and "webhook" to change webhook_url (FIELD_SCOPES)
    "blockPlayer": "profile:write",
    "unblockPlayer": "profile:write",
    "mutePlayer": "profile:write",
    "unmutePlayer": "profile:write",
    "acceptTerms": "profile:write",
    "createReport": "profile:write",
    # --- analysis --------------------------------------------------------------------------------
    "requestAnalysis": "analysis",
    "requestImportedAnalysis": "analysis",
    "listMyMistakes": "analysis",
    "importReplay": "analysis",
    # --- notifications ---------------------------------------------------------------------------
    "createPushSubscription": "notifications",
    "deletePushSubscription": "notifications",
    "createPushDevice": "notifications",
    "deletePushDevice": "notifications",
    "followMyEvents": "notifications",  # your own feed: every notice, what stands for you
    "createMyStreamTicket": "notifications",  # a ticket reads your own feed only
    "listNotifications": "notifications",
    "markNotificationsRead": "notifications",
    # --- tokens ----------------------------------------------------------------------------------
    "listTokens": "tokens",
    "createToken": "tokens",
    "revokeToken": "tokens",
    # --- moderation ------------------------------------------------------------------------------
    "listReports": "moderation",
    "getReport": "moderation",
    "decideReport": "moderation",
    "moderatePlayer": "moderation",
    "listModerationLog": "moderation",
    # --- the account -----------------------------------------------------------------------------
    "deleteMe": "account:delete",
}

#: Members of a request body that need a scope more than their operation's: operationId -> member -> scope.
FIELD_SCOPES: dict[str, dict[str, str]] = {
    "updateMe": {"webhook_url": "webhook"},  # every notice of the player's would go to the server it names
}
