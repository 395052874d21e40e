// The table page's Statistics panel: the scope selector (the whole log, the
// running encounter, the last hour), the button that asks the protocol's `stats`,
// and the charts of the reply (stats.mjs draws them). It follows the log's
// encounter.started and encounter.ended events, live or from history, to know
// where the running encounter began.

import { errorMessage } from "../client/protocol.mjs";
import { renderStats, scopeFields } from "./stats.mjs";
import { i18n } from "./texts.mjs";

/** The panel of one page: `form` (with the `scope` select), `box` for the charts. */
export class StatsPanel {
  /**
   * @param {object} parts the panel's elements and hooks
   * @param {HTMLFormElement} parts.form the form whose submit asks
   * @param {HTMLSelectElement} parts.scope the scope selector (all, encounter, hour)
   * @param {HTMLElement} parts.box where the charts go
   * @param {(message: object) => Promise<object>} parts.request sends a request, resolves with its result
   * @param {(text: string) => void} parts.onError says what went wrong
   */
  constructor({ form, scope, box, request, onError }) {
    this.scope = scope;
    this.box = box;
    this.request = request;
    this.onError = onError;
    this.running = false;
    /** The question being answered: one at a time however often the button is tapped. */
    this.asking = null;
    this.button = form.querySelector('button[type="submit"]');
    this.reset();
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.ask();
    });
  }

  /** Forget the charts and the encounter seen (a new join). */
  reset() {
    this.seqs = { started: 0, ended: 0 };
    this.box.replaceChildren();
  }

  /** Note an event of the log (its encounter's start and end). */
  note(event) {
    if (event.kind === "encounter.started") this.seqs.started = Math.max(this.seqs.started, event.seq);
    if (event.kind === "encounter.ended") this.seqs.ended = Math.max(this.seqs.ended, event.seq);
    this.refresh(this.running);
  }

  /** The seq of the running encounter's start, when the page has seen it. */
  encounterSeq() {
    const { started, ended } = this.seqs;
    return this.running && started > ended ? started : null;
  }

  /** Offer "this encounter" only while one runs whose start the page knows. */
  refresh(running) {
    this.running = Boolean(running);
    const choice = this.scope.querySelector('option[value="encounter"]');
    choice.disabled = this.encounterSeq() === null;
    if (choice.disabled && this.scope.value === "encounter") this.scope.value = "all";
  }

  /** Ask for the statistics of the chosen span and draw the reply; while a question
   * waits (a slow line), the button is aria-disabled (the focus stays on it) and a
   * tap asks nothing more: counting is costly, the server counts each. */
  async ask() {
    if (this.asking) return this.asking;
    const fields = scopeFields(this.scope.value, { encounterSeq: this.encounterSeq() });
    if (!fields) return undefined;
    this.box.setAttribute("aria-busy", "true");
    this.button?.setAttribute("aria-disabled", "true");
    this.asking = (async () => {
      try {
        this.box.replaceChildren(renderStats(i18n, await this.request({ type: "stats", ...fields })));
      } catch (error) {
        this.onError(errorMessage(error, i18n));
      } finally {
        this.box.removeAttribute("aria-busy");
        this.button?.removeAttribute("aria-disabled");
        this.asking = null;
      }
    })();
    return this.asking;
  }
}
