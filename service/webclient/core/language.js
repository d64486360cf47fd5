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

/** Where this tab keeps the language an address asked for (?lang=), for the rest of the visit. */
export const VISIT_KEY = "red7.lang.visit";
/** Where this tab notes the language its own script is about to open the page in (not the reader's asking). */
const OWN_KEY = "red7.lang.own";

/**
 * The language a visit asks for, and whether this address asked for it: the address's ?lang= (``pin``: it is kept for
 * the visit, unless it is ``own``, the address this page's script went to: a switch to the remembered language or
 * the player's setting, which asks nothing), else the one an address of this visit asked for before (``kept``).  So
 * an explicit language wins for the whole visit, whatever drops it from the address.
 * @param {string} search the address's query ("?lang=en&x=1")
 * @param {string | null} kept
 * @param {string | null} own
 * @returns {{ asked: string | null, pin: boolean }}
 */
export function visitLanguage(search, kept, own) {
  const asked = new URLSearchParams(search).get("lang");
  if (asked) return { asked, pin: asked !== own };
  return { asked: kept || null, pin: false };
}

/**
 * ``run`` with this tab's storage (sessionStorage), or ``fallback`` where it is refused (a sandbox).
 * @template T
 * @param {(storage: Storage) => T} run
 * @param {T} fallback
 * @returns {T}
 */
function inTab(run, fallback) {
  try {
    return run(sessionStorage);
  } catch (error) {
    return fallback;
  }
}

/** @type {{ asked: string | null } | null} */
let thisPage = null;

/** The language this visit asked for (?lang= now, or earlier in this tab), or null; read once a page. */
export function askedLanguage() {
  if (thisPage) return thisPage.asked;
  const kept = inTab((tab) => tab.getItem(VISIT_KEY), null);
  const own = inTab((tab) => tab.getItem(OWN_KEY), null);
  const { asked, pin } = visitLanguage(location.search, kept, own);
  inTab((tab) => {
    tab.removeItem(OWN_KEY);
    if (pin && asked) tab.setItem(VISIT_KEY, asked);
  }, undefined);
  thisPage = { asked };
  return asked;
}

/**
 * The page again at ``address``, in ``code``, noted as this script's own going (not the reader asking for it).
 * @param {string} code
 * @param {string} address
 * @param {boolean} replace
 */
function go(code, address, replace) {
  inTab((tab) => tab.setItem(OWN_KEY, code), undefined);
  if (replace) location.replace(address);
  else location.assign(address);
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
  if (shouldSwitch(code, language(), languages())) go(code, addressIn(location, code), true);
}

/**
 * Fill ``select`` with the languages, this page's chosen; on a change, remember the choice, call ``chosen`` (a
 * player's setting, say: what it does not finish is not waited for) and open the page in that language.  The page
 * first goes to the language this visit asked for (?lang=, now or earlier in this tab), else the one this browser
 * remembers.  ``web`` false (a page saved
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
  switchTo(askedLanguage() || keptLanguage());  // the visit's language (an address may have lost its ?lang=), else the kept one
  select.addEventListener("change", async () => {
    try {
      localStorage.setItem(LANG_KEY, select.value);
      sessionStorage.removeItem(VISIT_KEY);  // the language chosen here is the remembered one, for this visit too
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
    go(select.value, addressIn(location, select.value), false);
  });
}
