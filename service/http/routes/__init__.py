"""The routes of ``/v1``, one module per resource; importing this package registers them on the blueprints.

The order of the imports is the order of the paths in the OpenAPI document.
"""

from service.http.routes import players  # noqa: I001, F401 (registers its routes; this order is the paths order)
from service.http.routes import games  # noqa: F401
from service.http.routes import feeds  # noqa: F401
from service.http.routes import replays  # noqa: F401
from service.http.routes import meta  # noqa: F401
