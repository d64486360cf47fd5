"""Challenges as a request may ask for them: made, accepted, declined, cancelled, read one at a time and listed.

The rules are :mod:`service.domain.challenges` (pure); this loads a challenge (the fold of its stream), lets them decide,
and appends what they decided with the version and head it was decided on, deciding again if another write came
first.  Around that, what no single append can do: who is named, and the caps on what is open (a challenger's
sent, a player's inbox), each claimed before the append (:mod:`~service.application.challenges.creating`); the game
the last acceptance starts, made by whoever finds it missing, and the notices
(:mod:`~service.application.challenges.base`).

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
