"""Quick match: a player's tickets (open, read, cancel) and the matchmaker's pass, over the pools' streams.

A ticket lives in its pool's stream (:mod:`service.domain.matchmaking` decides and folds; :mod:`service.storage.matchmaking`
keeps), and in its player's index, which finds it without a scan.  Every write to a pool is load, decide, append
with the version (and head) that was read: two writers never both win, the loser decides again on the pool as it
is now.  So a matchmaker and a cancel, or two matchmakers, cannot seat a ticket twice or seat a cancelled one.

A match is decided (the game's id and seats in the ``tickets_matched`` event) before its game is made with
:meth:`GameService.set_up <service.application.games.GameService.set_up>` under that id, which makes a game once
however often it is asked.  Whoever finds a match whose game is not there yet makes it: the matchmaker's next
pass (a match stays pending in its pool until a ``games_made`` event says its game is made) and the ticket's next
read.  Nobody is matched but not seated.

Where each part is: :mod:`~service.application.matchmaking.pools` (a pool read, and its one write path),
:mod:`~service.application.matchmaking.matchmaker` (the matchmaker's pass, a match's game made once),
:mod:`~service.application.matchmaking.tickets` (a player's tickets) and :mod:`~service.application.matchmaking.service`
(:class:`MatchService`, both over one set of stores).  Import from here: the package is quick match's one door.
"""

from service.application.matchmaking.pools import ConflictingPool, PoolLoader, PoolWriter
from service.application.matchmaking.service import MatchService, default_rating, now_ms
from service.application.matchmaking.tickets import TicketRequest, TicketView, iso

__all__ = [
    "ConflictingPool",
    "MatchService",
    "PoolLoader",
    "PoolWriter",
    "TicketRequest",
    "TicketView",
    "default_rating",
    "iso",
    "now_ms",
]
