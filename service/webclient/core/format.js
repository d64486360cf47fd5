// Numbers as people write them, on /play and in the replay viewer alike.

/**
 * A rating change with its sign, as people write it: +12, −8 (a minus sign), ±0.
 * @param {number} n
 */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "\u00b10";
}

/**
 * Which way a change went, for the style: "up", "down" or "none".
 * @param {number} n
 */
export function signOf(n) {
  return n > 0 ? "up" : n < 0 ? "down" : "none";
}

/**
 * An ordinal: 1st, 2nd, 3rd, 11th in English; "3." in the page's other languages, as most of them write one.
 * @param {number} n
 * @param {string} lang
 */
export function ordinal(n, lang) {
  if (lang !== "en") return `${n}.`;
  return `${n}${["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;
}

/**
 * A word with its first letter in capitals ("card played" → "Card played").
 * @param {string} word
 */
export function capitalized(word) {
  return word ? word.charAt(0).toUpperCase() + word.slice(1) : "";
}

/**
 * A moment from the API (ISO 8601, UTC) as the viewer prints it: "2026-11-27 10:30:00 UTC".
 * @param {string} iso
 */
export function utc(iso) {
  return String(iso).replace("T", " ").replace(/\.\d+Z$/, " UTC");
}
