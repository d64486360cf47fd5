"""Decision analysis of a game: each player's win chance, from what that player knew, and each step judged by it.

Why it exists.  A replay says what was played; this says whether it was a good
step.  The anchor is a chess engine's game analysis (a win chance per position,
an accuracy per move, labels by the drop in win chance), but Red7 hides hands
and the deck, and a judge that looked at them would blame players for what they
could not know.  So every decision is judged **only from the mover's knowledge**:
the mover's view and redacted history at that point (:func:`engine.projection.view`,
:func:`engine.projection.redact`), never the real hidden cards.

Deterministic: each decision's deals come from ``random.Random`` seeded with the
analysis seed and the decision's number, so the same events and seed give the
same numbers, and the hidden cards the mover had not seen cannot change them.
Pure: no clock, no I/O.

Where each part is: :mod:`~engine.analysis.decisions` (a game's decisions and what each mover knew),
:mod:`~engine.analysis.values` (what a round's end is worth: win chance, place share),
:mod:`~engine.analysis.evaluation` (one decision judged: ΔW, ΔP, a label), :mod:`~engine.analysis.accuracy`
(each player's accuracy, labels and luck) and :mod:`~engine.analysis.report` (the whole game's analysis).
"""

from engine.analysis.accuracy import PlayerSummary, game_accuracy, move_accuracy, summarise
from engine.analysis.decisions import DecisionPoint, decision_points
from engine.analysis.evaluation import DEFAULT_BUDGET, LABELS, THRESHOLDS, Budget, Evaluation, evaluate
from engine.analysis.report import VERSION, Analysis, analyse
from engine.analysis.values import place_share, win_chance

__all__ = [
    "DEFAULT_BUDGET",
    "LABELS",
    "THRESHOLDS",
    "VERSION",
    "Analysis",
    "Budget",
    "DecisionPoint",
    "Evaluation",
    "PlayerSummary",
    "analyse",
    "decision_points",
    "evaluate",
    "game_accuracy",
    "move_accuracy",
    "place_share",
    "summarise",
    "win_chance",
]
