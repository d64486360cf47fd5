"""Keep stream tickets out of the logs: access logs write request lines, and a ticket travels in the query string.

A ticket reads a player's own feed (their hand) for a minute, so whoever reads
the logs in that minute could use it.  The filter rewrites every record of the
access loggers (werkzeug's, for ``red7 serve``; gunicorn's, in production)
with each ``ticket=`` value cut to its first characters, enough to tell two
apart when debugging and too few to use.
"""

from __future__ import annotations

import logging
import re

#: The loggers that write request lines.
ACCESS_LOGGERS = ("werkzeug", "gunicorn.access")
_TICKET = re.compile(r"(ticket=)([A-Za-z0-9_\-%.~]{0,8})[A-Za-z0-9_\-%.~]*")


def redact_tickets(text: str) -> str:
    """``text`` with every ``ticket=`` value shortened to 8 characters and an ellipsis."""
    return _TICKET.sub(lambda m: f"{m.group(1)}{m.group(2)}…", text)


class TicketRedaction(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "ticket=" in message:
            record.msg, record.args = redact_tickets(message), None
        return True


def redact_access_logs() -> None:
    """Install the filter on the access loggers, once per process."""
    for name in ACCESS_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, TicketRedaction) for f in logger.filters):
            logger.addFilter(TicketRedaction())
