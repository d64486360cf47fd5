"""Background jobs (RQ): AI seats, round scoring, turn deadlines, notifications."""
