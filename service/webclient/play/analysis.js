// A finished game's decision analysis (requestAnalysis), asked for and read until the workers are done: at a game's
// end and for each unanalysed game of "Your mistakes".

import { Problem, sleep } from "../core/api.js";
import { t } from "../core/words.js";
import { api } from "./session.js";

/**
 * A game's analysis asked for (harmless when asked before) and read every 1.5 s until done, its progress given to
 * ``say``; null once ``wanted()`` is false (the page went elsewhere); a Problem thrown when it failed.
 * @param {string} gameId
 * @param {(words: string) => void} say
 * @param {() => boolean} wanted
 * @returns {Promise<Record<string, any> | null>}
 */
export async function awaitAnalysis(gameId, say, wanted) {
  const path = `/v1/games/${encodeURIComponent(gameId)}/analysis`;
  say(t("play.analysing"));
  let answer = (await api("POST", path)).data;
  while (answer.status === "queued" || answer.status === "running") {
    const { done, total } = answer.progress;
    say(total ? t("play.analysing_progress", { done, total }) : t("play.analysing"));
    await sleep(1500);
    if (!wanted()) return null;
    answer = (await api("GET", path)).data;
  }
  if (answer.status !== "done") throw new Problem(0, { title: t("play.analysis_failed"), detail: t("play.try_again_later") });
  return answer;
}
