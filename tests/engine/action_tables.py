"""Tables for the action-rule tests (docs/rules.md 26-32), shared by the test_rules_actions_* modules.

``actions`` lays out a table played with the action rules, in the basic variant unless the
test asks for another, so that no advanced draw (docs/rules.md 22) gets in the way unless wanted.
"""

from engine import Destination, Variant, legal_steps
from tests.engine.tables import table

BASIC, ADVANCED = Variant.BASIC, Variant.ADVANCED
DECK, CANVAS = Destination.DECK, Destination.CANVAS


def actions(**layout):
    """A table played with the action rules (basic variant unless given)."""
    layout.setdefault("variant", BASIC)
    return table(action_rules=True, **layout)


def listed(state):
    return [s.step for s in legal_steps(state)]
