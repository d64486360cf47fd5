// What the moderators told you (listNotices), on your games' screen: that a report of yours was handled, or what was
// decided about you (a warning, a rename to choose again, a mute).  The server words each notice in your language.

import { $, h } from "../core/dom.js";
import { api } from "./session.js";

/** The newest notices shown: enough to see what happened lately. */
export const SHOWN = 5;

/** Your notices, newest first; the panel hidden while there are none. */
export async function showNotices() {
  try {
    /** @type {{ notices: { code: string, text: string, at: string }[] }} */
    const data = (await api("GET", "/v1/players/me/notices", { quiet: true })).data;
    const newest = [...data.notices].sort((a, b) => b.at.localeCompare(a.at)).slice(0, SHOWN);
    $("notices").replaceChildren(...newest.map((notice) => h("li", { "data-code": notice.code },
      h("span", { text: notice.text }), " ",
      h("small", { class: "muted", text: new Date(notice.at).toLocaleString() }))));
    $("notices-panel").hidden = newest.length === 0;
  } catch (problem) {
    $("notices-panel").hidden = true;  // an older server without notices, or no answer: nothing to say
  }
}
