// The words a page says, in its language: the server puts them in the page (a JSON element, id "words") in the
// language of the request, from the catalogs (service/webclient/words.py), so nothing shows in English first.
// Pure but for reading that element once: node's tests give the words with setWords.

/**
 * What the server embeds: the page's language, the languages to switch to (code: name in itself), and the words
 * by code, with ``counted``: for each kind (cards, points, days...), its words for 0, 1, 2 ... in the plural forms.
 * @typedef {{ lang: string, languages: Record<string, string>, words: Record<string, unknown> }} Said
 */

/** @type {Said} */
const NONE = { lang: "en", languages: {}, words: {} };

/**
 * The words in a page's JSON element; none when there is no such element or it does not parse (each text then
 * shows its code, and the page still works).
 * @param {Element | null} element
 * @returns {Said}
 */
export function readWords(element) {
  try {
    const said = JSON.parse((element && element.textContent) || "null");
    if (!said || typeof said !== "object") return NONE;
    return { lang: String(said.lang || "en"), languages: said.languages || {}, words: said.words || {} };
  } catch (error) {
    return NONE;
  }
}

/** @type {Said} */
let said = typeof document === "undefined" ? NONE : readWords(document.getElementById("words"));

/**
 * The words to say from now on (a test's; a page reads its own).
 * @param {Said} words
 */
export function setWords(words) {
  said = words;
}

/** The page's language ("en", "pl", ...). */
export function language() {
  return said.lang;
}

/** The languages a page may switch to: code, and its name in itself. */
export function languages() {
  return said.languages;
}

/**
 * Whether there is a word for ``code``.
 * @param {string} code
 */
export function has(code) {
  return Object.prototype.hasOwnProperty.call(said.words, code) && code !== "counted";
}

/**
 * ``text`` with each %(name)s (or %(name)d) filled in from ``params``; one not given stays as it is.
 * @param {string} text
 * @param {Record<string, unknown>} [params]
 */
export function fill(text, params) {
  return text.replace(/%\((\w+)\)[sd]/g, (all, name) => (params && name in params ? String(params[name]) : all));
}

/**
 * The word ``code`` with its %(name)s filled in from ``params``; the code itself when there is no such word.
 * @param {string} code
 * @param {Record<string, unknown>} [params]
 */
export function t(code, params) {
  return fill(has(code) ? String(said.words[code]) : code, params);
}

/**
 * ``t`` as parts to put in an element: each %(name)s that ``nodes`` names is that node (a number in bold, say),
 * the others filled in from ``params``; no empty strings.
 * @param {string} code
 * @param {Record<string, unknown>} [params]
 * @param {Record<string, Node>} [nodes]
 * @returns {(string | Node)[]}
 */
export function tNodes(code, params, nodes) {
  const text = has(code) ? String(said.words[code]) : code;
  /** @type {(string | Node)[]} */
  const out = [];
  let last = 0;
  for (const match of text.matchAll(/%\((\w+)\)[sd]/g)) {
    const [all, name] = match;
    const at = match.index || 0;
    out.push(text.slice(last, at));
    out.push(nodes && nodes[name] ? nodes[name] : params && name in params ? String(params[name]) : all);
    last = at + all.length;
  }
  out.push(text.slice(last));
  return out.filter((part) => part !== "");
}

/**
 * ``n`` cards, points, days... in the language's plural form ("1 karta", "2 karty", "5 kart"); the number alone
 * beyond the forms the page has.
 * @param {string} kind
 * @param {number} n
 */
export function counted(kind, n) {
  const all = /** @type {Record<string, string[]> | undefined} */ (said.words.counted);
  const forms = (all && all[kind]) || [];
  return forms[n] !== undefined ? forms[n] : String(n);
}
