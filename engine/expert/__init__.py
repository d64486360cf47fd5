"""The expert bot: determinized Monte Carlo search over full turns, from the seat's own view.

Why this shape.  Red7 is a game of hidden hands, so a search that looked at the
true state would cheat and a search on the visible state alone cannot look
ahead.  The expert therefore plays *determinizations*: it deals the cards it
cannot see at random, consistently with everything its seat knows, and plays
each candidate turn forward on those deals.  The turn with the best average
outcome over many deals is the one it sends.

Inputs.  :meth:`ExpertBot.plan_view` receives only what the seat may see: its
:class:`~engine.projection.View` and the seat's redacted event history
(:func:`engine.projection.redact`).  It refuses anything else — a
``GameState`` or an unredacted event — so that honesty is enforced at the
interface, not promised by the caller.

Sampling (:func:`read_belief`, :func:`sample_state`).  From the history of the
current round the bot rebuilds what is public beyond the view: which cards a 1
or a 7 put on top of the deck and who drew them afterwards (so that seat is
known to hold them), and which cards left the round with an eliminated player
(the palette is public, the hand is not).  Every card it has not seen is then
dealt uniformly at random to the unknown places: the other hands (by their
public sizes), the unknown deck positions, and the hands that left the round.
A sample is a full :class:`~engine.state.GameState` whose view for the seat is
exactly the view the bot was given.

Search (:meth:`ExpertBot.plan_view`).  The candidates are the full turns of
:func:`engine.legal.walk` from the real position (so only legal steps are ever
returned), ranked by the greedy bot's one-turn heuristic and cut to the best
``candidates``.  Every iteration draws one sample and plays *every* surviving
candidate on it (common random numbers: the candidates are compared on the
same deals, which removes most of the noise from the comparison), then lets a
fast greedy rollout policy play the round to its end.  Candidates that are
behind the leader by a clear margin on the paired differences are dropped,
so the budget goes to the turns that are close.  The search stops at the time
budget (measured only with the injected clock) or after ``iterations``
samples, in which case it is fully deterministic for a given ``rng``.

Objective (:func:`round_value`).  Winning the game is what counts, not winning
rounds.  In the basic variant the round is the game (1 or 0).  In the advanced
variant a finished round is valued by the probability of going on to win the
game from the scores it leaves: a table computed once from a simple model
(each later round is won by either player with equal chance, worth a number
of points drawn from the distribution seen in self-play).  So a big round is
worth more than a small one, a round that reaches the target is worth the
game, and a round an opponent wins costs more the closer it takes them to the
target.  With three or four players the odds against each opponent are
multiplied.  The rule-book endings (target reached, deck exhausted) are
scored exactly.  Half the round's point margin (over the target) is added:
the odds model is coarse, and in head-to-head tests the margin alone played
as well as the odds alone, the sum at least as well as either.

The parts, in the order a decision uses them: :mod:`~engine.expert.belief`
(what the seat knows, and the check that it was told no more),
:mod:`~engine.expert.sampling` (one deal of the unseen cards),
:mod:`~engine.expert.search` (the bot: candidates, samples, pruning),
:mod:`~engine.expert.rollout` (a sample played to the end of the round),
:mod:`~engine.expert.policy` (the greedy choices the rollout makes) and
:mod:`~engine.expert.odds` (what the finished round is worth).
"""

from engine.expert.belief import Belief, HistoryMismatch, check_inputs, read_belief
from engine.expert.odds import MARGIN_WEIGHT, RoundValue, game_odds, round_value
from engine.expert.policy import plan_value
from engine.expert.sampling import sample_state
from engine.expert.search import ExpertBot, SearchReport

__all__ = [
    "MARGIN_WEIGHT",
    "Belief",
    "ExpertBot",
    "HistoryMismatch",
    "RoundValue",
    "SearchReport",
    "check_inputs",
    "game_odds",
    "plan_value",
    "read_belief",
    "round_value",
    "sample_state",
]
