// The page's elements: one by its id, of the kind the page's markup says it is; new ones whose text stays text.

/**
 * The element with ``id``: an HTMLElement, or of ``kind`` (HTMLInputElement, HTMLSelectElement...); the markup and
 * the script go together, so one that is missing, or of another kind, is a bug, said at once.
 * @overload
 * @param {string} id
 * @returns {HTMLElement}
 */
/**
 * @template {Element} E
 * @overload
 * @param {string} id
 * @param {{ new (...args: any[]): E }} kind
 * @returns {E}
 */
/**
 * @param {string} id
 * @param {{ new (...args: any[]): Element }} [kind]
 * @returns {Element}
 */
export function $(id, kind = HTMLElement) {
  const node = document.getElementById(id);
  if (!(node instanceof kind)) throw new Error(`#${id}: ${node ? "not a " + kind.name : "no such element"}`);
  return node;
}

/** @typedef {Node | string | null | undefined | false} Child */

/**
 * An element with attributes and children, text always as text (names come from other players): ``class``,
 * ``text`` (its text), ``data-*``, ``on<event>`` (a listener), any other attribute (true: present, no value); an
 * attribute null, undefined or false is left out, and so is such a child.
 * @param {string} tag
 * @param {Record<string, unknown> | null} [attrs]
 * @param {...(Child | Child[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = String(value);
    else if (key === "text") node.textContent = String(value);
    else if (key.startsWith("data-")) node.setAttribute(key, String(value));
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), /** @type {EventListener} */ (value));
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}
