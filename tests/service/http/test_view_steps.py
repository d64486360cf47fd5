"""The legal steps a mover's view lists: built once per step and language, and still right for each table."""

from __future__ import annotations

from engine import Card, LegalStep
from engine.steps import Discard, Play, Take
from service.common.texts import AI_SEATS, RESIGNED_SEATS, Text
from service.http.views import _frozen, _legal_step_json, legal_step_json, spoken_seat
from tests.harness.support import HUMAN, ai


def _fresh(option: LegalStep, name: str | Text | None, language: str) -> dict:
    """The step's JSON as built without the kept ones."""
    return _legal_step_json.__wrapped__(option, _frozen(name), language)


def test_a_take_names_the_player_of_the_seat_it_takes_from_at_each_table():
    """docs/rules.md 27: a 1 takes a card from another palette; the text says whose, and the same step at another
    table (another player in seat 1) or after a handle changed says the name now."""
    take = LegalStep(Take(1, Card.parse("R3")), can_win=True)
    for name in ("Bo", "Cy", "Bo"):
        step = legal_step_json(take, lambda seat, name=name: {1: name}[seat])
        assert step["description"]["params"] == {"card": "R3", "player": name}
        assert step["description"]["text"] == f"Take R3 from {name}'s palette and put it face down on top of the deck."
        assert step == _fresh(take, name, "en")


def test_the_same_step_is_said_in_each_language_asked():
    discard = LegalStep(Discard(Card.parse("B5")), can_win=True, grants_draw=True, ends_turn=True, draws=True)
    english = legal_step_json(discard, language="en")
    polish = legal_step_json(discard, language="pl")
    assert english["description"]["code"] == polish["description"]["code"] == "step.discard.draw"
    assert english["description"]["text"] != polish["description"]["text"]
    assert polish == _fresh(discard, None, "pl")
    assert english == {
        "type": "discard",
        "card": "B5",
        "draw": True,
        "can_win": True,
        "eliminates": False,
        "grants_draw": True,
        "draws": True,
        "ends_turn": True,
        "description": english["description"],
    }


def test_each_view_gets_a_step_of_its_own():
    """A step kept for the next view is not the one handed out: a caller that adds to its copy changes no other view."""
    play = LegalStep(Play(Card.parse("G4")), can_win=False)
    first = legal_step_json(play)
    first["extra"] = True
    again = legal_step_json(play)
    assert "extra" not in again and again is not first
    assert again == _fresh(play, None, "en")


def test_a_take_from_an_ai_or_a_resigned_player_names_them_in_the_language_asked():
    """A player's own name stays as they wrote it; "AI 1 (greedy)" and "Bo (resigned; AI expert)" are the service's
    words, said in the reader's language, and given to clients as a text of their own they can say themselves."""
    take = LegalStep(Take(1, Card.parse("R3")), can_win=True)
    ai = Text(AI_SEATS["greedy"], {"number": 1})
    resigned = Text(RESIGNED_SEATS["expert"], {"name": "Bo"})
    english = legal_step_json(take, lambda seat: ai, "en")
    polish = legal_step_json(take, lambda seat: ai, "pl")
    assert english["description"]["params"] == {"card": "R3", "player": {"code": "seat.ai.greedy", "params": {"number": 1}}}
    assert english["description"]["text"] == "Take R3 from AI 1 (greedy)'s palette and put it face down on top of the deck."
    assert polish["description"]["params"] == english["description"]["params"]
    assert "SI 1 (chciwa)" in polish["description"]["text"] and "greedy" not in polish["description"]["text"]
    assert polish == _fresh(take, ai, "pl")
    said = {language: legal_step_json(take, lambda seat: resigned, language)["description"]["text"] for language in ("de", "ru")}
    assert "Bo (aufgegeben; KI Experte)" in said["de"] and "Bo (сдался; ИИ эксперт)" in said["ru"], said


def test_a_games_seats_are_spoken_as_a_player_wrote_their_name_and_as_the_service_words_an_ai(api):
    """The view's names for its sentences: a human's name as is; an AI seat as a text of the service's words."""
    token = api.player("Ana")["token"]
    game = api.game(token, [HUMAN, ai()])
    loaded = api.runtime.games.load(game["id"])
    assert spoken_seat(loaded, 0) == "Ana"
    assert spoken_seat(loaded, 1) == Text(AI_SEATS["greedy"], {"number": 1})
