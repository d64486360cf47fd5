"""Application services: what a request or a job may do to a game — load it, let the engine decide, append.

Below the entry points (HTTP routes, RQ jobs, the CLI), above storage and
the game layer; nothing here speaks HTTP or knows RQ.
"""
