// The language switch of /play and the replay viewer: the page again in the chosen language (?lang= in its
// address, what the server renders it in), remembered in this browser for the next page opened ("red7.lang").

import { language, languages } from "./words.js";

/** Where this browser remembers the language chosen last, for every page of the web client. */
export const LANG_KEY = "red7.lang";

/**
 * An address in another language: ``search`` with lang set, the path and the fragment (the screen, the step) kept.
 * @param {{ pathname: string, search: string, hash: string }} where
 * @param {string} code
 */
export function addressIn(where, code) {
  const query = new URLSearchParams(where.search);
  query.set("lang", code);
  return where.pathname + "?" + query.toString() + where.hash;
}

/** The language the address asks for (?lang=), or null. */
export function askedLanguage() {
  return new URLSearchParams(location.search).get("lang");
}

/** The language this browser remembers, or null (none yet, or storage refused, as in a sandbox). */
export function keptLanguage() {
  try {
    return localStorage.getItem(LANG_KEY);
  } catch (error) {
    return null;
  }
}

/**
 * Whether a page in ``now`` should go to ``wanted``: a language the page may switch to, other than its own.
 * @param {string | null | undefined} wanted
 * @param {string} now
 * @param {Record<string, string>} known
 * @returns {wanted is string}
 */
export function shouldSwitch(wanted, now, known) {
  return !!wanted && wanted !== now && Object.prototype.hasOwnProperty.call(known, wanted);
}

/**
 * The page again in ``code``, if that is another language the page may switch to (replacing this page in the
 * history: the reader did not ask for this one).
 * @param {string | null | undefined} code
 */
export function switchTo(code) {
  if (shouldSwitch(code, language(), languages())) location.replace(addressIn(location, code));
}

/**
 * Fill ``select`` with the languages, this page's chosen; on a change, remember the choice, call ``chosen`` (a
 * player's setting, say: what it does not finish is not waited for) and open the page in that language.  Without a
 * ?lang= in the address, the page first goes to the language this browser remembers.  ``web`` false (a page saved
 * to disk holds one language): the switch shows, disabled.
 * @param {HTMLSelectElement} select
 * @param {{ web?: boolean, chosen?: (code: string) => Promise<unknown> }} [options]
 */
export function languageSwitch(select, options = {}) {
  const web = options.web !== false;
  for (const [code, name] of Object.entries(languages())) {
    const option = document.createElement("option");
    option.value = code;
    option.lang = code;
    option.textContent = name;
    option.selected = code === language();
    select.append(option);
  }
  select.disabled = !web;
  if (!web) return;
  if (!askedLanguage()) switchTo(keptLanguage());
  select.addEventListener("change", async () => {
    try {
      localStorage.setItem(LANG_KEY, select.value);
    } catch (error) {
      // not remembered, but the page still changes
    }
    if (options.chosen) {
      try {
        await options.chosen(select.value);
      } catch (error) {
        // the setting stays as it was; the page still changes
      }
    }
    location.assign(addressIn(location, select.value));
  });
}
