"""The replay viewer in Polish and Russian in a real headless Chromium: every word from the catalogs, none left in
English but names, and the language switch remembered.

Screenshots go to ``tmp_path`` (and to ``$RED7_SCREENSHOTS`` when it names a folder, to look at them).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from service.common.texts import LANGUAGE_NAMES
from tests.harness.browser import chromium, skip_without_chromium
from tests.replays.test_viewer_browser import Served
from tests.replays.test_viewer_browser import served as served  # the module's fixture, shared

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

#: A word: letters (a token with a digit is a card, a number, an id or Red7, never a word of a language).
WORD = re.compile(r"[^\W_]+")
#: What a page may show in Latin letters whatever its language: key caps, the time zone, and each language's own name
#: in the switch.
ALWAYS = {"Home", "End", "UTC", *(word for name in LANGUAGE_NAMES.values() for word in name.split())}


def names_in(document: dict[str, Any]) -> set[str]:
    """The words of names: seats (an AI's label holds its level), the game's id."""
    words = set(words_of(document["game_id"]))
    for seat in document["seats"]:
        words |= words_of(seat["name"]) | words_of(seat.get("level") or "")
    return words


def words_of(text: str) -> set[str]:
    return {word for word in WORD.findall(text) if not any(c.isdigit() for c in word)}


def text_of(driver: Any) -> str:
    """Everything the page shows or says to assistive technology: its text, titles, labels and its title."""
    return driver.execute_script(
        """
        const parts = [document.title, document.body.innerText];
        for (const node of document.querySelectorAll("[title], [aria-label], [aria-valuetext]")) {
          for (const name of ["title", "aria-label", "aria-valuetext"]) {
            if (node.getAttribute(name)) parts.push(node.getAttribute(name));
          }
        }
        return parts.join("\\n");
        """
    )


def shot(driver: Any, tmp_path: Path, name: str) -> None:
    driver.save_screenshot(str(tmp_path / f"{name}.png"))
    folder = os.environ.get("RED7_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


def step_through(driver: Any, url: str, counter: str) -> list[str]:
    """Open ``url``, check the counter reads ``counter`` (step 0), and take the page's text at the start, one step on,
    the middle and the end."""
    driver.get(url)
    WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "step-counter").text == counter)
    texts = [text_of(driver)]
    body = driver.find_element(By.TAG_NAME, "body")
    for key in (Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT):
        body.send_keys(key)
    texts.append(text_of(driver))
    body.send_keys(Keys.END)
    texts.append(text_of(driver))
    return texts


@pytest.mark.parametrize(
    ("language", "counter", "title"), [("pl", "Krok 0 / ", "Powtórka Red7 "), ("ru", "Шаг 0 / ", "Повтор Red7 ")]
)
def test_the_viewer_speaks_polish_and_russian_with_no_english_word_left(
    served: Served, tmp_path: Path, language: str, counter: str, title: str
) -> None:
    document = served.document
    total = len(document["steps"])
    allowed = ALWAYS | names_in(document)
    with chromium() as driver:
        english = step_through(driver, f"{served.view_url}?lang=en", f"Step 0 / {total}")
        said = step_through(driver, f"{served.view_url}?lang={language}", f"{counter}{total}")
        assert driver.title == f"{title}{served.game_id}"
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == language
        shot(driver, tmp_path, f"viewer-{language}-end")
        driver.find_element(By.CSS_SELECTOR, '#step-list button[data-step="6"]').click()
        shot(driver, tmp_path, f"viewer-{language}-step6")
        errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
        assert errors == [], errors
    english_words = set().union(*(words_of(text) for text in english)) - allowed
    for text in said:
        words = words_of(text) - allowed
        left = sorted(words & english_words)
        if language == "pl":
            left = [word for word in left if word not in POLISH_TOO]
        else:  # Russian: no Latin word at all but names
            left = sorted(word for word in words if re.fullmatch(r"[A-Za-z]+", word))
        assert left == [], f"English left on the {language} page: {left}"


#: Words the English page shows that are Polish words too (and so are not "left in English").
POLISH_TOO = {"Start"}


def test_the_language_switch_reloads_the_page_and_is_remembered(served: Served, tmp_path: Path) -> None:
    with chromium() as driver:
        driver.get(f"{served.view_url}#step=3")
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "step-counter").text.startswith("Step 3 /"))
        switch = Select(driver.find_element(By.ID, "lang"))
        assert [option.get_attribute("value") for option in switch.options] == ["en", "pl", "ru", "pt", "de", "fr", "es", "it"]
        assert switch.first_selected_option.text == "English"
        switch.select_by_value("ru")
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ru")
        assert "lang=ru" in driver.current_url and driver.current_url.endswith("#step=3")  # the step kept
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.ID, "step-counter").text.startswith("Шаг 3 /"))
        assert driver.execute_script("return localStorage.getItem('red7.lang')") == "ru"
        driver.get(served.view_url)  # no language asked: the one chosen before
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ru")
        assert "lang=ru" in driver.current_url
        shot(driver, tmp_path, "viewer-ru-remembered")
        Select(driver.find_element(By.ID, "lang")).select_by_value("pl")
        WebDriverWait(driver, 5).until(lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "pl")
        assert driver.find_element(By.ID, "rule").text == "Czerwona"
