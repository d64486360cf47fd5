"""Challenges as a request may ask for them: made, accepted, declined, cancelled, read one at a time and listed.

The rules are :mod:`service.domain.challenges` (pure); this loads a challenge (the fold of its stream), lets them decide,
and appends what they decided with the version and head it was decided on, deciding again if another write came
first.  Around that, what no single append can do:

- *Who is named.*  The challenged are named by handle (:meth:`PlayerService.by_handle`), or by player id.
- *Caps.*  A challenger may have ``max_open`` challenges sent and still open, and one at a time toward each player
  (both claimed in one transaction with the challenge's place in their index, on their slot:
  :class:`~service.storage.challenges.ChallengeIndex`, so that twelve identical creates at once make one); a player
  may have ``max_received`` received and still open (each inbox's place taken by one script with its cap's check, on
  the player's slot: fifty challengers cannot fill it past the cap); making and accepting one respects the quotas of
  games in play (:class:`~service.application.quotas.Quotas`) of whoever would play.  What a cap counts is pruned of
  what is no longer open when it is reached (answered, cancelled, expired, a create that stopped long ago).
- *The game.*  The last acceptance appends ``challenge_started`` with the game's id; the game is then made under that
  id (:meth:`GameService.set_up`, which makes a game once whoever calls it).  Should the process stop between the
  two, the next read of the challenge (or of the inbox, or an acceptance again) makes it: nobody is left with a
  started challenge and no game.
- *Notices.*  The players concerned are told by webhook (:func:`~service.application.followups.challenge_notice`),
  after the append, as a game's players are; a notice lost with its process is not sent again (what it told is in
  the inbox).

A challenge the caller has no part in is ``challenge_not_found``, as one that does not exist.

Where each part is: :mod:`~service.application.challenges.base` (the stores, a challenge loaded and shown, the one
append path, what follows an append), :mod:`~service.application.challenges.creating`,
:mod:`~service.application.challenges.answering`, :mod:`~service.application.challenges.listing`, and
:mod:`~service.application.challenges.service` (:class:`ChallengeService`, all of them).  Import from here: the package
is the challenges' one door.
"""

from service.application.challenges.base import ChallengeOutcome
from service.application.challenges.creating import NewChallenge
from service.application.challenges.listing import ChallengePage
from service.application.challenges.service import ChallengeService
from service.domain.challenges import Challenge

__all__ = ["Challenge", "ChallengeOutcome", "ChallengePage", "ChallengeService", "NewChallenge"]
