// An imported replay without a decision analysis: its page names where to ask for one (data-url), and a player of
// this browser (the one /play keeps) may ask; the page is read again once it is ready.  Saved to disk, a page cannot
// ask: it shows no button that cannot work.

import { request, sleep } from "../core/api.js";
import { $ } from "../core/dom.js";
import { t } from "../core/words.js";


/** The player /play keeps in this browser (its "red7.player"), whose token may ask; null for a visitor. */
function player() {
  try {
    const stored = JSON.parse(localStorage.getItem("red7.player") || "null");
    return stored && typeof stored.token === "string" ? /** @type {{ token: string }} */ (stored) : null;
  } catch (error) {
    return null;
  }
}

/**
 * The button that asks for the analysis, where the page offers it.
 * @param {Replay} replay
 * @param {boolean} web the page came from a server (not a file saved to disk)
 */
export function offerAnalysis(replay, web) {
  const box = $("analyse");
  const path = box.dataset.url;
  if (!path || replay.analysis || !web) return;
  box.hidden = false;
  const signIn = () => {
    $("analyse-ask").hidden = true;
    $("analyse-sign-in").hidden = false;
  };
  if (!player()) {
    signIn();
    return;
  }
  const state = $("analyse-state");
  /** @param {string} words */
  const show = (words) => { state.textContent = words; };
  /**
   * One call to the analysis (its POST with the player's token); a refusal is thrown as a Problem.
   * @param {string} method
   */
  const call = async (method) => {
    const me = player();
    const token = method === "POST" && me ? me.token : null;
    return (await request(method, path, { token, credentials: "omit" })).data;
  };
  const button = $("analyse-button", HTMLButtonElement);
  const problem = $("analyse-problem");
  button.addEventListener("click", async () => {
    if (button.disabled) return;
    button.disabled = true;
    problem.hidden = true;
    show(t("viewer.analysing"));
    try {
      let answer = await call("POST");
      while (answer.status === "queued" || answer.status === "running") {
        const { done, total } = answer.progress || {};
        show(total ? t("viewer.analysing_progress", { done, total }) : t("viewer.analysing"));
        await sleep(1500);
        answer = await call("GET");
      }
      if (answer.status !== "done") throw { status: 0, title: t("viewer.analysis_failed"), detail: t("viewer.try_again_later") };
      show(t("viewer.analysis_ready"));
      location.reload();  // the page again, the analysis in it (the step kept: it is in the address)
    } catch (error) {
      const failed = /** @type {{ status?: number, code?: string | null, title?: string, detail?: string }} */ (error);
      show("");
      problem.textContent = [failed.title, failed.detail].filter(Boolean).join(" ");
      problem.dataset.status = String(failed.status || 0);
      problem.dataset.code = failed.code || "";
      problem.hidden = false;
      button.disabled = false;
      if (failed.status === 401) signIn();  // the kept token no longer works: a player is needed again
    }
  });
}
