"""Storage: what the service keeps in Redis — game streams, players and tokens, imported replays.

Knows games only as streams of payloads (:mod:`service.storage.events`) and
players as records; nothing here folds a game or speaks HTTP.
"""
