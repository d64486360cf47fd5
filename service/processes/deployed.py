"""The settings an operator's command runs with: the deployment at REDIS_URL, or a word on why there is none.

Every command but ``serve`` and ``demo`` works on a deployment's stores (a worker, a migration, a rebuild, the
admin console): an embedded store lives inside the ``red7 serve --embedded`` process that made it, so without
REDIS_URL there is nothing for them to open, and each says so in its own words, with exit status 2.
"""

from __future__ import annotations

import sys

from service.common.config import Settings


def deployment_settings(command: str, why: str) -> Settings | None:
    """The settings from the environment, or ``None`` once ``red7 <command> needs REDIS_URL: <why>`` is said."""
    settings = Settings.from_env()
    if settings.embedded:
        print(f"red7 {command} needs REDIS_URL: {why}", file=sys.stderr)
        return None
    return settings
