// The words the tests read the modules with: the pages' own, in English, as the server embeds them
// (tests/service/webclient/test_javascript.py writes them and names the file in RED7_WORDS).

import { readFileSync } from "node:fs";
import { setWords } from "../../../../service/webclient/core/words.js";

/** The English words, set for the modules to say. */
export function english() {
  const path = process.env.RED7_WORDS;
  if (!path) throw new Error("RED7_WORDS names no file: run these through pytest (tests/service/webclient/test_javascript.py)");
  const said = JSON.parse(readFileSync(path, "utf-8"));
  setWords(said);
  return said;
}
