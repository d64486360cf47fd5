"""The replay viewer: one self-contained HTML page (no build step, no network) with the replay inside.

The page is the template ``replays/viewer.html`` (inline CSS and JavaScript, no
external URL of any kind) with two placeholders filled in: the title, HTML-escaped,
and the replay document as JSON in a ``<script type="application/json">``
element.  It works under ``default-src 'none'; script-src 'unsafe-inline';
style-src 'unsafe-inline'`` and when saved to disk.

The JSON is made safe for the inside of a ``<script>`` element by writing every
``<``, ``>`` and ``&`` as a JSON ``\\u`` escape: ``</script>`` and ``<!--`` can
then never appear in it, and ``JSON.parse`` gives back exactly the document.
"""

from __future__ import annotations

import html
import json
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from replays.build import BEFORE_FIRST
from replays.explain import _FINISH
from service.texts import (
    CARDS,
    DEFAULT,
    LANGUAGE_NAMES,
    MESSAGES,
    POINTS,
    RULE_NAMES,
    Text,
    count,
    message,
    plural,
    render,
    supported,
    translations,
)

TEMPLATE = "viewer.html"
_PLACEHOLDER = re.compile(r"__RED7_(TITLE|REPLAY_JSON|WORDS_JSON|LANG|ANALYSE_URL)__|__T:([a-zA-Z_.]+)__")
# Outside strings JSON has none of these characters, so escaping them everywhere keeps the JSON valid.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


@lru_cache(maxsize=1)
def template() -> str:
    """The page template shipped in this package."""
    return resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")


def embed_json(document: Any) -> str:
    """``document`` as JSON that can stand inside a ``<script>`` element (no ``</``, no ``<!--``)."""
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)


#: Every word the viewer shows, by code (its page says them in the language it was asked in: ``render_viewer``).
WORDS: tuple[str, ...] = (
    message("viewer.noscript", "This replay viewer needs JavaScript to step through the match. The replay data is in this page."),
    message("viewer.game_options", "Game options"),
    message("viewer.controls", "Replay controls"),
    message("viewer.first", "First"),
    message("viewer.first_step", "First step"),
    message("viewer.first_step_key", "First step (Home)"),
    message("viewer.back", "Back"),
    message("viewer.back_step", "Back one step"),
    message("viewer.back_step_key", "Back one step (Left arrow)"),
    message("viewer.play", "Play"),
    message("viewer.pause", "Pause"),
    message("viewer.play_title", "Play the steps one by one"),
    message("viewer.forward", "Forward"),
    message("viewer.forward_step", "Forward one step"),
    message("viewer.forward_step_key", "Forward one step (Right arrow)"),
    message("viewer.last", "Last"),
    message("viewer.last_step", "Last step"),
    message("viewer.last_step_key", "Last step (End)"),
    message("viewer.step", "Step"),
    message("viewer.step_counter", "Step %(current)s / %(total)s"),
    message("viewer.step_of", "Step %(current)s of %(total)s"),
    message("viewer.keys", "Keys:"),
    message("viewer.one_step", "one step,"),
    message("viewer.first_and_last", "first and last."),
    message("viewer.key_home", "Home"),
    message("viewer.key_end", "End"),
    message("viewer.what_happened", "What happened"),
    message("viewer.table", "Table"),
    message("viewer.round", "Round"),
    message("viewer.rule", "Rule"),
    message("viewer.canvas", "Canvas"),
    message("viewer.deck", "Deck"),
    message("viewer.turn", "Turn"),
    message("viewer.outcome", "Outcome"),
    message("viewer.winner_is", "Winner:"),
    message("viewer.seats", "Seats"),
    message("viewer.steps", "Steps"),
    message("viewer.card.R", "Red %(number)s"),
    message("viewer.card.O", "Orange %(number)s"),
    message("viewer.card.Y", "Yellow %(number)s"),
    message("viewer.card.G", "Green %(number)s"),
    message("viewer.card.B", "Blue %(number)s"),
    message("viewer.card.I", "Indigo %(number)s"),
    message("viewer.card.V", "Violet %(number)s"),
    message("viewer.help.red", "Highest card wins."),
    message("viewer.help.orange", "Most cards of one number."),
    message("viewer.help.yellow", "Most cards of one colour."),
    message("viewer.help.green", "Most even cards."),
    message("viewer.help.blue", "Most cards of different colours."),
    message("viewer.help.indigo", "Longest run of consecutive numbers."),
    message("viewer.help.violet", "Most cards below 4."),
    message("viewer.pending.take", "resolving a 1 (take a card)"),
    message("viewer.pending.draw", "resolving a 3 (draw)"),
    message("viewer.pending.play", "resolving a 5 (play again)"),
    message("viewer.pending.place", "resolving a 7 (move a palette card)"),
    message("viewer.unreadable", "This page's replay data could not be read: %(error)s"),
    message("viewer.no_steps_data", "This page holds no replay steps."),
    message(
        "viewer.format", "This replay has the format %(format)s; this viewer knows red7-replay/1 and shows it as best it can."
    ),
    message("viewer.seat", "Seat %(seat)s"),
    message("viewer.rating_before", "Rating %(rating)s before the game"),
    message("viewer.rating_now", "Rating %(rating)s now"),
    message("viewer.provisional", "(provisional)"),
    message("viewer.rating_after", "%(after)s after it (%(change)s)"),
    message("viewer.change_pending", "its change is not in yet"),
    message("viewer.new", "(new)"),
    message("viewer.no_cards", "no cards"),
    message("viewer.full", "Full replay: every hand is shown."),
    message("viewer.spectator", "Spectator's view: hands are hidden."),
    message("viewer.seat_view", "%(player)s's view: only that hand is shown."),
    message("viewer.game", "Game %(game)s"),
    message("viewer.created", "Created %(at)s"),
    message("viewer.players", "Players"),
    message("viewer.variant", "Variant"),
    message("viewer.variant.basic", "Basic"),
    message("viewer.variant.advanced", "Advanced"),
    message("viewer.action_rules", "Action rules"),
    message("viewer.on", "on"),
    message("viewer.off", "off"),
    message("viewer.target", "Target"),
    message("viewer.dealing", "Dealing"),
    message("viewer.dealing.random", "random"),
    message("viewer.dealing.seeded", "seeded"),
    message("viewer.dealing.custom", "custom"),
    message("viewer.seed", "Seed"),
    message("viewer.rated", "Rated"),
    message("viewer.rated_on", "yes, %(ladder)s ladder"),
    message("viewer.ai", "AI"),
    message("viewer.human", "Human"),
    message("viewer.score", "Score"),
    message("viewer.score_pile", "Score pile"),
    message("viewer.palette", "Palette"),
    message("viewer.hand", "Hand"),
    message("viewer.hand_of", "Hand · %(cards)s"),
    message("viewer.start", "Start"),
    message("viewer.round_n", "Round %(round)s"),
    message("viewer.winner", "Winner"),
    message("viewer.waiting", "Waiting"),
    message("viewer.won_round", "Won the round"),
    message("viewer.to_play", "To play"),
    message("viewer.in_round", "In round"),
    message("viewer.out", "Out"),
    message("viewer.press_forward", "Press Forward or → to start."),
    message("viewer.no_steps", "This replay has no steps."),
    message("viewer.start_card", "Start card"),
    message("viewer.start_card_title", "The starting card: the rule is Red"),
    message("viewer.no_card_yet", "no card yet"),
    message("viewer.this_step", "this step's seat"),
    message("viewer.empty", "empty"),
    message("viewer.wins", "%(player)s wins the game: %(reason)s."),
    message("viewer.wins_after", "%(player)s wins the game: %(reason)s after %(rounds)s."),
    message("viewer.points_of", "%(player)s: %(points)s"),
    message("viewer.rating_change", "rating %(before)s → %(after)s (%(change)s)"),
    message("viewer.not_over", "The game is not over: this replay ends where the game stands now."),
    message("viewer.language", "Language"),
    message("viewer.win_chance", "Win chance"),
    message(
        "viewer.win_chance_note",
        "Each player's chance to win the match, estimated after each of their decisions from what they knew then. "
        "Click the chart to go to that step.",
    ),
    message("viewer.accuracy_per_player", "Accuracy per player"),
    message("viewer.accuracy", "Accuracy %(accuracy)s"),
    message("viewer.luck", "luck %(luck)s"),
    message("viewer.label.inaccuracy", "inaccuracy"),
    message("viewer.label.mistake", "mistake"),
    message("viewer.label.blunder", "blunder"),
    message("viewer.verdict", "%(label)s: %(delta)s points of win chance lost (±%(se)s)"),
    message(
        "viewer.verdict_went_out",
        "%(label)s: %(delta)s points of win chance lost (±%(se)s), going out when a turn staying in existed",
    ),
    message("viewer.chart_label", "Win chance of each player along the game; click to go to a step"),
    # Asking for an imported replay's analysis (``render_viewer``'s ``analyse``): the words /play says it with.
    message("viewer.analyse_none", "This replay has no decision analysis yet."),
    message("viewer.analyse", "Analyse the decisions"),
    message("viewer.analyse_needs_player", "Only a player can ask for one: play in this browser first."),
    message("viewer.go_play", "Play Red7"),
    message("viewer.analysing", "Analysing the decisions…"),
    message("viewer.analysing_progress", "Analysing the decisions: %(done)s of %(total)s…"),
    message("viewer.analysis_ready", "The analysis is ready: the replay shows it."),
    message("viewer.analysis_failed", "The analysis failed."),
    message("viewer.try_again_later", "Try again later."),
    message("viewer.unreachable", "The server cannot be reached."),
    message("viewer.check_connection", "Check your connection and try again."),
    message("viewer.request_failed", "Request failed"),
)
#: The page's title: the replay of a game (or of an imported file), by its id.
TITLE = message("viewer.title", "Red7 replay %(id)s")
#: Counted words the page needs, each said for 0 to COUNTED - 1 (the plural forms are the catalogs').
COUNTED_WORDS = {
    "cards": CARDS,
    "points": POINTS,
    "rounds": plural("viewer.rounds", "%(n)d round", "%(n)d rounds"),
    "hidden": plural("viewer.hidden_cards", "%(n)d hidden card", "%(n)d hidden cards"),
    "inaccuracy": plural("viewer.inaccuracies", "%(n)d inaccuracy", "%(n)d inaccuracies"),
    "mistake": plural("viewer.mistakes", "%(n)d mistake", "%(n)d mistakes"),
    "blunder": plural("viewer.blunders", "%(n)d blunder", "%(n)d blunders"),
}
COUNTED = 100


def words(language: str) -> dict[str, Any]:
    """What the page's script says, in ``language``: every word, rules' names, counts, and the languages to switch to."""
    said: dict[str, Any] = {code: render(Text(code), language) for code in WORDS if "%(" not in MESSAGES[code].singular}
    said.update({code: translations(language).gettext(MESSAGES[code].singular) for code in WORDS if code not in said})
    said.update({code: render(Text(code), language) for code in (*RULE_NAMES.values(), *_FINISH.values(), BEFORE_FIRST)})
    said["counted"] = {key: [render(count(n, code), language) for n in range(COUNTED)] for key, code in COUNTED_WORDS.items()}
    return {"lang": language, "languages": LANGUAGE_NAMES, "words": said}


def render_viewer(
    document: dict[str, Any], title: str = "Red7 replay", language: str = DEFAULT, analyse: str | None = None
) -> str:
    """The page for ``document``, its words in ``language`` (the steps' texts come in the document); the replay is
    embedded, so the page works saved to disk too.  ``analyse``: where a player may ask for the replay's decision
    analysis (a same-origin path), for a replay that has none yet; the page then offers a button for it, which needs
    the network (and ``connect-src 'self'``): saved to disk, it does not show."""
    language = supported(language)
    said = words(language)
    values = {
        "TITLE": html.escape(title),
        "REPLAY_JSON": embed_json(document),
        "WORDS_JSON": embed_json(said),
        "LANG": language,
        "ANALYSE_URL": html.escape(analyse or ""),
    }
    texts = said["words"]

    def fill(match: re.Match[str]) -> str:
        placeholder, word = match.group(1), match.group(2)
        return values[placeholder] if placeholder else html.escape(texts[word])

    # One pass, so a title or a name that spells a placeholder is not filled in again.
    return _PLACEHOLDER.sub(fill, template())
