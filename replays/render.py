"""A replay told in plain text, turn by turn (``red7 replay show``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def describe_options(document: dict[str, Any]) -> str:
    options = document["options"]
    rules = "with the action rules" if options["action_rules"] else "without the action rules"
    names = ", ".join(seat["name"] for seat in document["seats"])
    dealt = {"custom": " (custom-dealt)", "seeded": " (seeded)"}.get(options.get("dealing"), "")
    return f"{options['variant'].capitalize()} game, {rules}, {options['players']} players{dealt}: {names}"


def lines(document: dict[str, Any]) -> Iterator[str]:
    yield f"Red7 replay of {document['game_id']} — {describe_options(document)}"
    perspective = document["perspective"]
    if perspective != "full":
        yield f"(as {'a spectator' if perspective == 'spectator' else 'seat ' + str(perspective['seat'])} has seen it so far)"
    for step in document["steps"]:
        kind = step["type"]
        if kind == "round_dealt":
            yield ""
            yield f"== {step['text']}"
        elif kind == "turn_started":
            yield f"-- {step['text']}"
        elif kind == "game_started":
            continue
        else:
            yield f"   {step['index']:>4}. {step['text']}"
    outcome = document.get("outcome")
    yield ""
    if outcome:
        names = [seat["name"] for seat in document["seats"]]
        scores = ", ".join(f"{names[s]} {score}" for s, score in enumerate(outcome["scores"]))
        how = outcome["finish"].replace("_", " ")
        yield f"Winner: {names[outcome['winner']]} ({how}) after {outcome['rounds']} round(s). Scores: {scores}."
    else:
        yield "The game is still on."
    yield f"Content hash: {document['hash']}"
