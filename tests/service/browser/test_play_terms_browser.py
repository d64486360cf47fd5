"""/play's sign-up in a real headless Chromium (issue 36): the terms of use shown and accepted at sign-up, and a name
with an offensive word refused with the problem's words. Skipped without Chromium, like every browser test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from service.http.app import create_app
from service.runtime import build_runtime
from tests.harness.browser import desktop_chromium, served, skip_without_chromium
from tests.harness.support import settings_for

skip_without_chromium()
from selenium.webdriver.common.by import By  # noqa: E402 (after the skip)
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, Any]]:
    runtime = build_runtime(settings_for(f"red7-test:{uuid.uuid4().hex[:12]}:", terms_version="2026-11"))
    with served(create_app(runtime), "play-safety-server") as base:
        yield base, runtime


def problem_title(driver: Any) -> str:
    WebDriverWait(driver, 10).until(lambda d: not d.find_element(By.ID, "problem").get_attribute("hidden"))
    return str(driver.find_element(By.ID, "problem-title").text)


def test_signing_up_shows_the_terms_and_accepts_them_and_refuses_an_offensive_name(site):
    base, runtime = site
    with desktop_chromium() as driver:
        driver.get(f"{base}/play?lang=en")
        WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.body.dataset.screen") == "signup")
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "signup-terms").is_displayed())
        link = driver.find_element(By.ID, "signup-terms-link").get_attribute("href")
        assert link == f"{runtime.safety.terms.in_force.url}" or link.endswith("/terms")
        name = driver.find_element(By.ID, "signup-name")
        name.send_keys("Ana")
        driver.find_element(By.ID, "signup-submit").click()
        assert problem_title(driver) == "Accept the terms of use first."
        driver.find_element(By.ID, "problem-close").click()
        driver.find_element(By.ID, "signup-terms-accept").click()
        name.clear()
        name.send_keys("F.u.c.k")
        driver.find_element(By.ID, "signup-submit").click()
        assert problem_title(driver) == "This name holds a word that is not allowed"
        driver.find_element(By.ID, "problem-close").click()
        name.clear()
        name.send_keys("Ana")
        driver.find_element(By.ID, "signup-submit").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "who-name").text == "Ana")
        stored = driver.execute_script("return JSON.parse(localStorage.getItem('red7.player'))")
        assert runtime.safety.moderation.store.standing(stored["id"]).terms == "2026-11"
