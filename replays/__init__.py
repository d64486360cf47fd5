"""Replays: full match records built from a game's events, verification and export."""
