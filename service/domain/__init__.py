"""The game as the service knows it, and the service's other aggregates (lobby, challenges, quick match,
calendars, ratings): typed commands and events, ``decide`` and ``fold``, pure (no I/O, no clock)."""
