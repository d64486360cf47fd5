"""Live games to watch (``listLiveGames``) and embeds: the oEmbed answer for a viewer's link (``getOEmbed``).

The list is :mod:`service.application.live`'s; the watchers it counts are the spectators of the feeds
(:mod:`service.http.routes.feeds`).  An embed is the replay viewer's embed mode (``?embed=1``,
:mod:`service.http.routes.replays`), the one page of the service another site may frame.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask import Response, request
from flask.views import MethodView

from replays.viewer import TITLE
from service.application.live import LiveFilter
from service.application.players import PlayerTag
from service.common.texts import Text
from service.http.common import (
    PUBLIC,
    documented_errors,
    game_service,
    json_response,
    player_service,
    red7_runtime,
    v1,
)
from service.http.duplicate import tournament_gate
from service.http.examples import example
from service.http.locale import say
from service.http.problems import ApiError
from service.http.schemas import LiveGameListSchema, LiveGamesQuerySchema, OEmbedQuerySchema, OEmbedSchema
from service.http.views import seat_name, seated_ids

#: The list changes with every game that starts or ends and every watcher: caches may keep it a few seconds.
SHARED_BRIEFLY = {"Cache-Control": "public, max-age=5"}
#: An embed's size when the consumer sets no bound (px): the viewer's embed mode fits it.
EMBED_WIDTH, EMBED_HEIGHT = 640, 480
#: How long a consumer may keep an oEmbed answer (s): the iframe shows the game as it is whenever it is opened.
CACHE_AGE = 3600
PROVIDER = "Red7"
#: The viewers a link may name: a game's and an imported replay's.
_VIEWER = re.compile(r"/v1/(?:games/(?P<game>[A-Za-z0-9_-]{1,64})/replay|replays/(?P<replay>[A-Za-z0-9_-]{1,64}))/view")
_STEP = re.compile(r"step=(\d{1,6})")


def live_game_json(game: Any, rating: int, watchers: int, tags: dict[str, PlayerTag]) -> dict[str, Any]:
    """A line of ``GET /v1/live-games``."""
    return {
        "id": game.id,
        "variant": game.variant.value,
        "action_rules": game.action_rules,
        "players": len(game.seats),
        "seats": [seat_name(game, n, tags) for n in range(len(game.seats))],
        "rated": game.rated,
        "rating": rating,
        "watchers": watchers,
        "round": game.state.round,
        "turn_timeout": game.turn_timeout,
        "days_per_turn": game.days_per_turn,
        "view_url": f"/v1/games/{game.id}",
        "stream_url": f"/v1/games/{game.id}/stream",
        "viewer_url": f"/v1/games/{game.id}/replay/view",
    }


@v1.route("/live-games")
class LiveGames(MethodView):
    @documented_errors(422, 429)
    @v1.arguments(LiveGamesQuerySchema(), location="query")
    @v1.response(200, LiveGameListSchema, example=example("LiveGameList"))
    @v1.doc(operationId="listLiveGames", security=PUBLIC)
    def get(self, query: dict[str, Any]) -> Response:
        """The games being played now that anyone may watch, the highest rated first (``order=watchers``: the most
        watched first), with how many are watching each.

        Watch one with the spectator's view and feeds (`getGame`, `listEvents`, `streamEvents` without a token): an
        open spectator feed is a watcher. A game is left off when one of its players keeps their games off the list
        (`live_listed` in `updateMe`), and while it belongs to a duplicate tournament round still running (its deal
        is secret until the round ends).
        """
        live = red7_runtime().live
        assert live is not None, "build_runtime makes one"
        filters = LiveFilter(**{k: v for k, v in query.items() if k not in ("limit", "order")})
        found = live.listed(filters, query["limit"], query["order"])
        tags = player_service().tags(set().union(*(seated_ids(x.game) for x in found)))
        games = [live_game_json(x.game, x.rating, x.watchers, tags) for x in found]
        return json_response({"games": games}, 200, SHARED_BRIEFLY)


@v1.route("/oembed")
class OEmbed(MethodView):
    @documented_errors(404, 422, 429, 501)
    @v1.arguments(OEmbedQuerySchema(), location="query")
    @v1.response(200, OEmbedSchema, example=example("OEmbed"))
    @v1.doc(operationId="getOEmbed", security=PUBLIC)
    def get(self, query: dict[str, Any]) -> Response:
        """The oEmbed 1.0 answer (https://oembed.com) for a link to a replay viewer on this server, so a blog or a
        forum that is given the link shows the viewer: a `rich` answer whose `html` is an iframe of the viewer's embed
        mode (no page chrome, the step of the link's `#step=N`, the link's `theme`), no larger than `maxwidth` ×
        `maxheight`.

        As the spec says: a URL that is no viewer of this server's, or one of a game or replay there is not, is 404;
        `format=xml` is 501.
        """
        if query["format"] != "json":
            raise ApiError("oembed_format_not_implemented", "Only format=json is served.")
        parts = urlsplit(query["url"])
        found = _VIEWER.fullmatch(parts.path)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() != request.host.lower() or found is None:
            raise ApiError("not_found", "The url is no replay viewer of this server's.")
        if found["game"]:
            tournament_gate(found["game"], None)
            game_service().load(found["game"])  # 404 for a game that is not there
            title_id = found["game"]
        else:
            if red7_runtime().imports.get(found["replay"]) is None:
                raise ApiError("not_found", f"There is no imported replay {found['replay']!r}.")
            title_id = found["replay"]
        theme = parse_qs(parts.query).get("theme", [""])[0]
        src = f"{parts.scheme}://{parts.netloc}{parts.path}?embed=1"
        if theme in ("light", "dark"):
            src += f"&theme={theme}"
        step = _STEP.fullmatch(parts.fragment)
        if step:
            src += f"#step={int(step[1])}"
        width = min(EMBED_WIDTH, query.get("maxwidth", EMBED_WIDTH))
        height = min(EMBED_HEIGHT, query.get("maxheight", EMBED_HEIGHT))
        title = say(Text(TITLE, {"id": title_id}))
        frame = (
            f'<iframe src="{html.escape(src)}" width="{width}" height="{height}" title="{html.escape(title)}" '
            'style="border:0;max-width:100%" loading="lazy" referrerpolicy="no-referrer"></iframe>'
        )
        body = {
            "type": "rich",
            "version": "1.0",
            "title": title,
            "provider_name": PROVIDER,
            "provider_url": request.host_url,
            "cache_age": CACHE_AGE,
            "html": frame,
            "width": width,
            "height": height,
        }
        return json_response(body, 200, {"Cache-Control": f"public, max-age={CACHE_AGE}"})
