"""The routes of ``/v1``, one module per resource; importing this package registers them on the blueprints.

``play`` is the exception: the web client at ``/play``, a page on a plain Flask blueprint of its own.

The order of the imports is the order of the paths in the OpenAPI document.
"""

from service.http.routes import players  # noqa: I001, F401 (registers its routes; this order is the paths order)
from service.http.routes import archive  # noqa: F401
from service.http.routes import statistics  # noqa: F401
from service.http.routes import blocks  # noqa: F401
from service.http.routes import games  # noqa: F401
from service.http.routes import push  # noqa: F401
from service.http.routes import push_devices  # noqa: F401
from service.http.routes import player_feeds  # noqa: F401
from service.http.routes import challenges  # noqa: F401
from service.http.routes import matchmaking as matches  # noqa: F401
from service.http.routes import tournaments  # noqa: F401
from service.http.routes import feeds  # noqa: F401
from service.http.routes import talk  # noqa: F401
from service.http.routes import replays  # noqa: F401
from service.http.routes import live  # noqa: F401
from service.http.routes import analysis  # noqa: F401
from service.http.routes import ladders  # noqa: F401
from service.http.routes import meta  # noqa: F401
from service.http.routes import play  # noqa: F401 (the web client: a page on a blueprint of its own, not in the spec)
from service.http.routes import terms  # noqa: F401 (acceptTerms, getTerms, and the sample terms page on play's blueprint)
from service.http.routes import reports  # noqa: F401
from service.http.routes import moderation  # noqa: F401
