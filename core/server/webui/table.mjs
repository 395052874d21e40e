// The web view of one table (/tables/ID): join with a token (typed in, from the
// #token=… fragment, or the one this tab joined with before it was reloaded), then
// the table live — actors, encounter, the log of
// rolls and resolutions — and the forms this viewer's role may use.
//
// A form's request is made once however often it is submitted: while it waits
// its button is aria-disabled (the keyboard's focus stays on it) and says whether
// it is being sent or waits for the connection, and a repeat submit sends nothing.
// Its answer
// is shown beside the form (on a phone the log is far above it), and a request
// waiting for the GM's approval is followed to the GM's answer. New results, the
// viewer's own and a lost or restored connection are told to screen readers in
// a polite live region (#announce). What the message line and the forms' lines
// say is kept across the reload a language's choice makes, and said again in the
// language chosen (kept.mjs).
//
// A slow line: the page's modules are preloaded at once (table.html), the top bar
// says "loading…" in the browser's language (loading.mjs) until the page's words
// are in, and the connection starts while they load: what it hears is held and
// shown, in order, once they are.

import { CONNECTION_LABELS, labelOf } from "../client/i18n.mjs";
import { errorMessage, localeNotice, newRequestId } from "../client/protocol.mjs";
import {
  actorCards, adjustForm, askDice, encounterView, openReasons, pendingList, reopenReasons, replaceKeepingFocus,
  showHistory,
} from "./controls.mjs";
import {
  actionForm, formState, ofTarget, replaceKeeping, restoreState, rollForm, sheetChoices, showOutcome, showWaiting,
} from "./forms.mjs";
import { showLogDownload, showLogHint } from "./download.mjs";
import { fetchHistory } from "./history.mjs";
import { holdPage, letPageGo, pageId, takeOver, tellsCopies } from "./keeper.mjs";
import { FULL, formsFor, keepForms, keepLines, keptLine, lineText, takeForms, takeLines } from "./kept.mjs";
import { byLabel, el, eventSummary, isolated, renderEvent, renderMine, showMineWaits } from "./render.mjs";
import {
  Session, browserLocale, forgetToken, keepTokenOnce, rememberToken, rememberedToken, socketUrl, tableFromPath,
  takeToken, takeTokenOnce,
} from "./session.mjs";
import { renderOdds } from "./stats.mjs";
import { StatsPanel } from "./statspanel.mjs";
import { followCutName, followTopBar } from "./topbar.mjs";
import {
  LANGUAGES, LANGUAGE_NAMES, chooseLanguage, counted, chosenLanguage, i18n, kindWord, localizePage, pageLanguage, useLanguage,
} from "./texts.mjs";

/** Log entries kept on the page (the oldest leave first). */
const MAX_ENTRIES = 500;
/** Lines kept in the live region (a screen reader reads each as it comes). */
const MAX_ANNOUNCED = 5;
/** The event kinds told to a screen reader as they come (the viewer's own always): a
 * fight's start (whose turn it is first) and end too — a screen reader heard each next
 * turn, never that the fight began or was over; an actor added or removed too (with
 * whose turn it is now, where the removal changed it) — the card came or went in
 * silence, and an actor removed on its turn passed the turn unheard. */
const ANNOUNCED = new Set(["roll", "resolution", "hidden", "adjusted", "undo", "redo", "encounter.started",
  "encounter.turn", "encounter.ended", "approval.requested", "approval.rejected", "actor.created", "actor.removed"]);

const $ = (id) => document.getElementById(id);
const tableId = tableFromPath(location.pathname);
// the language the viewer chose on a page of this server, else the browser's
const locale = chosenLanguage() ?? browserLocale();
let session = null;
/** Whether the page's own words are in; until then what the session hears waits in `heldCalls`. */
let worded = false;
const heldCalls = [];

/** `fn` as a listener that waits for the page's words: a call before they are in
 * is held, and made (in the order of the calls) when they come. */
function afterWords(fn) {
  return (...args) => {
    if (worded) fn(...args);
    else heldCalls.push(() => fn(...args));
  };
}

/** What the forms were built from: they are rebuilt only when it changes. */
let formsKey = null;

function say(text, kind = "info") {
  const line = $("message");
  line.textContent = text;
  line.dataset.kind = kind;
  line.dataset.code = ""; // a refusal's code (failed) goes with its words only
}

/** Tell a screen reader `text` (politely: after what it is reading). */
function announce(text) {
  if (!text) return;
  const region = $("announce");
  region.append(el("p", "", text));
  while (region.childElementCount > MAX_ANNOUNCED) region.firstElementChild.remove();
}

/** The requests of this page's forms still waiting for their answer, by the
 * form's key (data-form): its button stays aria-disabled, the form's submit sends
 * nothing (waitsForAnswer), and a repeat send here is the same request (same id:
 * the connection and the server take it as one). */
const waiting = new Map();
/** This page's requests waiting for the GM's approval: pending id → {form, request},
 * the form's key and the request as it was sent (its id too: askAgain asks the
 * server what became of it), or null when the page does not have it. */
const asked = new Map();
/** Whose those requests are, and the lines kept before this page's reload
 * (restoring): the identity the page joined as (a shared tablet's next person is
 * someone else), and the table's epoch they were made in (a restored backup counts
 * pending ids and seqs again in a new epoch, where the same pending id is another
 * request, another player's maybe, and the same seq another event). */
let askedOf = { identity: null, epoch: null };
/** This page's requests the GM has answered (or the server no longer knows) since
 * they waited: pending id → the request as it was sent. Their log entries still say
 * what was asked (renderMine), across a reload too: the entry of a roll the player
 * had asked for became the secret placeholder again once the page was loaded anew. */
const answeredMine = new Map();
/** Requests answered kept at most (the oldest leave first). */
const MAX_ANSWERED = 50;
/** This page's requests the GM approved in secret (a secret request, or an action the
 * ruleset always keeps secret): pending id → the seq of its event, which reached this
 * page as a `hidden` placeholder naming nothing — the player's log showed their
 * request as answered and a placeholder, not which was theirs. The server says it to
 * the request sent again (`repeat`: `{"status": "secret", "seq": 13}`): the two
 * entries say it (linkSecret), across a reload too. */
const mineSecret = new Map();

/** What the message line and each form's outcome line say, as what a reload in
 * another language shows again (kept.mjs): {line, text}, the line as kept and the
 * text shown. A line whose text the page has since replaced is not kept. */
const lines = { message: null, forms: new Map() };
/** The lines the page kept before it was loaded anew, until each is shown (or,
 * once the log from before is in, left out when the event it names is gone). */
let restoring = null;
/** The events the page has seen, by seq (a kept line shows an event's summary). */
const seen = new Map();
/** Whether the GM has undone the event of a seq, as the latest undo or redo of it the
 * page has seen says (followUndo): {undone, by: that undo's or redo's seq}. A line kept
 * before the page's reload is said as that says, not as it was kept. */
const undoneNow = new Map();

/** The requests waiting for the GM whose answer the page has seen: pending id → the
 * seq of the answer (the approved event's `data.approved`, a rejection's `data.pending`),
 * the latest MAX_ENTRIES. A placeholder at the seq a pending id counts from (p12 is
 * #12) was that request's `approval.requested`, whoever's: its entry says so. */
const answeredAt = new Map();

/** Note what a line now says: `line` (kept.mjs) shown as `text` on the message line
 * (when `text` is not empty) and beside the form `key`. */
function noteLine(line, text, key, formText = text) {
  if (text) lines.message = { line, text };
  if (key) lines.forms.set(key, { line, text: formText });
}

/** The summary of the event `seq` in the page's words, or null when it is not known. */
function summaryOf(seq) {
  const event = seen.get(seq);
  return event ? eventSummary(event, (id) => session.nameOf(id), session.words()) : null;
}

/** The table is in another epoch (restored from a backup): the lines that name an
 * event by its seq (a result, *the GM approved it: …*) stay as they are said, but
 * follow that seq no more, nor are kept for a reload, since it names another event
 * there (the GM's undo of that one said the player's line undone, with that event's
 * summary in it). */
function forgetEventLines() {
  if (Number.isInteger(lines.message?.line?.seq)) lines.message = null;
  for (const [key, entry] of [...lines.forms]) {
    if (Number.isInteger(entry.line?.seq)) lines.forms.delete(key);
  }
}

/** Show the lines kept before the reload that can be shown now: a form's once it is
 * built (an action's once the viewer chooses it again), one naming an event once the
 * event is known. With `last` (the log from before the page joined is in), a line
 * naming an event still unknown names it by its number (kept.mjs, lineText): the
 * event is further back than that log, and is not coming. */
function restoreLines(last = false) {
  if (!restoring) return;
  // undone or redone since it was kept (the log from before says so): said as it is now
  for (const line of [restoring.message, ...Object.values(restoring.forms)]) {
    if (line && undoneNow.has(line.seq)) line.undone = undoneNow.get(line.seq).undone;
  }
  const { message, forms } = restoring;
  if (last) {
    for (const line of [message, ...Object.values(forms)]) {
      if (line && line.seq !== null && summaryOf(line.seq) === null) line.gone = true;
    }
  }
  if (message) {
    const text = lineText(message, i18n, summaryOf);
    if (text !== null) {
      say(text, message.kind);
      $("message").dataset.code = message.code;
      lines.message = { line: message, text };
    }
    if (text !== null || last) restoring.message = null;
  }
  for (const [key, line] of Object.entries(forms)) {
    const text = lineText(line, i18n, summaryOf);
    if (text === null) {
      if (last) delete forms[key];
      continue;
    }
    const form = formOf(key);
    if (!form) continue;
    showOutcome(form, text, line.kind, line.code);
    lines.forms.set(key, { line, text });
    delete forms[key];
  }
  if (!restoring.message && !Object.keys(forms).length) restoring = null;
}

/** Keep what the lines say (those the page has not replaced since, and those kept
 * before this page's reload still waiting for their form) and the requests waiting
 * for the GM, for the page loaded anew in another language (`chosen`: the language
 * list's focus too) or after the phone discarded it. */
function keepTheLines(chosen = false) {
  const message = lines.message && $("message").textContent === lines.message.text ? lines.message.line : null;
  const forms = { ...restoring?.forms };
  for (const [key, { line, text }] of lines.forms) {
    if (formOf(key)?.querySelector(".form-status")?.textContent === text) forms[key] = line;
  }
  // the viewer chose the language in its list (by keyboard, or a screen reader's):
  // the page loaded anew gives the list the focus back, not the top of the page; one
  // chosen with a mouse does not (an arrow key pressed to scroll would choose another
  // language): the table's heading takes it, as after any join; nor does a page kept
  // because the phone hid or discarded it
  const focus = chosen && document.activeElement === $("language") && !mouseChose ? "language" : null;
  const waitingFor = [...asked].map(([pending, { form, request }]) => [pending, form, request]);
  const answeredKept = [...answeredMine].map(([pending, request]) => [pending, request, mineSecret.get(pending)]);
  const kept = keepLines(tableId, { message, forms, asked: waitingFor, answered: answeredKept, focus, ...askedOf,
    keeper: pageId });
  sayIfFull([kept, keepTheForms()]);
}

/** Whether the page has said that the tab's storage is full since it last kept all. */
let fullSaid = false;

/** Say on the message line, once until a keep fits again, that the tab's storage is
 * full (`statuses`, what keepLines and keepForms came to): what was typed may not all
 * come back after a reload, and the page keeps trying with less (keepForms). A keep
 * refused by the quota left the draft kept before in place, and said nothing. Once a
 * keep fits again the notice, still on the line, goes: it stayed, saying the storage
 * was full when it no longer was. */
function sayIfFull(statuses) {
  const full = statuses.includes(FULL);
  const notice = i18n.localize("ROLLBRIDGE.Web.Message.StorageFull");
  if (full && !fullSaid) say(notice, "error");
  else if (!full && fullSaid && $("message").textContent === notice) say("");
  fullSaid = full;
}

/** Whether the page is loading anew in the language chosen (it kept its lines). */
let languageReload = false;
/** Who the page joined as (role and name), for what it keeps across a reload; null
 * until it has joined. */
let joinedAs = null;
/** What was typed in the forms before a language's reload (kept.mjs), for the same
 * identity, until the forms are first built; then null. */
let restoringForms = null;

/** Keep what the viewer typed in the forms — the action chosen, each form's values
 * and open folds, the forms whose odds are shown (asked again after the reload), the
 * GM's open reason fields and their text — for the page loaded anew in another
 * language; never the page's tokens. What keepForms came to; null when the page has
 * no forms. */
function keepTheForms() {
  if (!joinedAs || $("act-panel").hidden) return null;
  const shown = {};
  for (const form of document.querySelectorAll("#roll form[data-form], #action form[data-form], #adjust form[data-form]")) {
    shown[form.dataset.form] = formState(form);
  }
  // shown, or asked and not answered yet (its button waits): the question is the viewer's
  const odds = [...document.querySelectorAll("form[data-form]")]
    .filter((form) => form.querySelector(".form-odds")?.childElementCount
      || form.querySelector('button[name="odds"]')?.getAttribute("aria-disabled") === "true")
    .map((form) => form.dataset.form);
  const state = { action: $("action-select").value || null, odds, reasons: openReasons(), keeper: pageId };
  const secrets = [joinToken, acceptedToken].filter(Boolean);
  // the other actions' drafts too, the latest last: what is shown is kept before them
  // (keepForms keeps what fits, and says what did not)
  const others = [...drafts].filter(([key]) => !(key in shown));
  return keepForms(tableId, joinedAs, { ...state, shown: Object.keys(shown), forms: { ...Object.fromEntries(others), ...shown } },
    secrets);
}

/** What the viewer typed in each action's form while another action is shown, by the
 * form's key (data-form): put back when that action is chosen again (and kept across
 * a reload with the form shown). Switching to another action and back built the form
 * anew, empty: the values typed were lost, and the GM's *secret* box unchecked — the
 * next press went out in the open. The latest MAX_DRAFTS. */
const drafts = new Map();
const MAX_DRAFTS = 50;

/** Each action form's state as it was built (JSON), before anything was typed in it
 * or put back: a form still so holds no draft. */
const builtAs = new WeakMap();

/** What the form `form` holds as a draft, as JSON: its values and folds. */
const draftOf = (form) => {
  const { values, open } = formState(form);
  return JSON.stringify({ values, open });
};

/** Note the action form `box` holds as a draft (its values and folds, not the focus);
 * a form nothing was typed in is none (its draft goes): each action merely looked at
 * was one, and past MAX_DRAFTS of them the drafts typed before were gone. */
function keepDraft(box) {
  const form = box.querySelector("form[data-form]");
  if (!form) return;
  const draft = draftOf(form);
  drafts.delete(form.dataset.form);
  if (builtAs.get(form) === draft) return;
  drafts.set(form.dataset.form, JSON.parse(draft));
  while (drafts.size > MAX_DRAFTS) drafts.delete(drafts.keys().next().value);
}

/** Put what was typed in the form `box` holds before the reload (`kept`) back in it. */
function putKept(box, kept) {
  const form = box.querySelector("form[data-form]");
  const state = form && kept?.forms[form.dataset.form];
  if (state) restoreState(form, state);
}

/** Whether a request goes out now: connected, and the browser not offline. */
function lineUp() {
  return Boolean(session?.connection.connected) && navigator.onLine !== false;
}

/** The form of a key on the page (a rebuilt one too), or null. */
function formOf(key) {
  return [...document.querySelectorAll("form[data-form]")].find((form) => form.dataset.form === key) ?? null;
}

/** Each form's button as its request stands: being sent, held until the
 * connection is back, or free. */
function showForms() {
  const how = lineUp() ? "sending" : "queued";
  for (const form of document.querySelectorAll("form[data-form]")) {
    showWaiting(form, waiting.has(form.dataset.form) ? how : null);
  }
}

/** A done request's result in a line: its event's summary (the reply's, or the
 * log's entry of its seq). */
function resultText(reply) {
  if (reply.event) return eventSummary(reply.event, (id) => session.nameOf(id), session.words());
  const entry = Number.isInteger(reply.seq) ? $("log").querySelector(`li[data-seq="${reply.seq}"]`) : null;
  return entry?.querySelector(".narration, .summary")?.textContent ?? "";
}

/** Keep what the page would keep for its next load, soon (set where the page's
 * events are followed, below); nothing until then. */
let keepSoon = () => {};

/** What a reply says, on the message line and beside the form `key` sent it. */
function answered(reply, key, request = null) {
  let text = "";
  let line = null;
  if (reply.status === "pending") {
    line = { key: "ROLLBRIDGE.Web.Message.Pending", data: { pending: reply.pending } };
    text = i18n.format("ROLLBRIDGE.Web.Message.Pending", { pending: reply.pending });
    if (key) {
      asked.set(reply.pending, { form: key, request });
      askedOf = { identity: joinedAs, epoch: session.welcome?.epoch ?? null };
      showMine(reply.pending);
    }
  } else if (reply.status === "secret") {
    line = { key: "ROLLBRIDGE.Web.Message.Secret" };
    text = i18n.localize("ROLLBRIDGE.Web.Message.Secret");
  } else if (reply.status === "rejected") {
    line = rejectedLine(reply.reason);
    text = lineText(line, i18n, summaryOf);
  } else line = { seq: reply.seq ?? reply.event?.seq };
  say(text);
  const form = key ? formOf(key) : null;
  const formText = text || resultText(reply);
  if (form) showOutcome(form, formText);
  noteLine(line, text, key, formText);
  keepSoon(); // a request waiting for the GM, the line beside the form
  return reply;
}

/** The seq of the GM-only event a reply names as its request's (a request waiting for
 * the GM: `p12` is #12; a secret one's seq), or null. */
function ownSeq(reply) {
  if (reply?.status === "pending" && /^p\d+$/.test(reply.pending ?? "")) return Number(reply.pending.slice(1));
  return reply?.status === "secret" && Number.isInteger(reply.seq) ? reply.seq : null;
}

/** A refused or unanswered request: on the message line and beside its form, in
 * the server's words alone (its code, English jargon to a player, is kept on the
 * line as data-code for whoever helps them). */
function failed(error, key, message = null) {
  if (message?.type === "approve" && refusedApproval(error, message)) return;
  const text = errorMessage(error, i18n);
  say(text, "error");
  $("message").dataset.code = error?.code ?? "";
  const form = key ? formOf(key) : null;
  if (form) showOutcome(form, text, "error", error?.code);
  // the page's own words come back in another language; the server's, said in the
  // language the page asked for then, cannot: a reload says it was refused
  const line = error?.key ? { key: error.key, data: error.data }
    : { key: "ROLLBRIDGE.Web.Message.RefusedEarlier" };
  noteLine({ ...line, kind: "error", code: error?.code }, text, key);
}

/**
 * The GM's *Approve* of `message.request` refused: one that needs the GM's own dice (a
 * request held with the player's dice for an action that is always secret now,
 * `held_dice_secret`) is said in the page's words — the server's words name a way the page
 * did not have (`rollbridge connect`'s `approve … supply=…`) — on the message line and
 * beside the request, whose dice field opens (diceControls); a refusal of the GM's
 * dice is said beside that field too. False for any other refusal (said as any is).
 */
function refusedApproval(error, message) {
  const pending = String(message.request ?? "");
  const held = error?.code === "held_dice_secret";
  if (!held && !Array.isArray(message.dice)) return false;
  const text = held ? i18n.format("ROLLBRIDGE.Web.Message.HeldDice", { pending }) : errorMessage(error, i18n);
  say(text, "error");
  $("message").dataset.code = error?.code ?? "";
  noteLine(held ? { key: "ROLLBRIDGE.Web.Message.HeldDice", data: { pending }, kind: "error", code: error.code }
    : { key: "ROLLBRIDGE.Web.Message.RefusedEarlier", kind: "error", code: error?.code }, text, null);
  askDice(session.welcome?.epoch ?? null, pending, text);
  if (session.role === "gm") replaceKeepingFocus($("pending"), pendingList(session, send));
  return true;
}

/**
 * Send a request; with the form it came from, once: a repeat submit while it
 * waits sends the same request again (the same id), never a second one.
 * @param {object} message the request, without an id
 * @param {HTMLFormElement|null} form the form (with its data-form key), if any
 */
function send(message, form = null) {
  if (!form) {
    return tracked(session.request(message)).then((reply) => answered(reply, null),
      (error) => failed(error, null, message));
  }
  const key = form.dataset.form;
  const held = waiting.get(key);
  if (held) return session.request(held.request);
  const entry = { request: { ...message, id: newRequestId("web") } };
  waiting.set(key, entry);
  showOutcome(form, "");
  showForms();
  // an answer for a session left behind (the page joined anew) is not this page's now
  const settle = () => {
    if (waiting.get(key) !== entry) return false;
    waiting.delete(key);
    showForms();
    return true;
  };
  return tracked(session.request(entry.request)).then(
    (reply) => {
      const mine = settle();
      tellSecrets(ownSeq(reply));
      return mine ? answered(reply, key, entry.request) : reply;
    },
    (error) => {
      const mine = settle();
      tellSecrets();
      if (mine) failed(error, key);
    },
  );
}

/** This page's requests not answered yet — queued while the line is down, or sent —
 * which a reload would lose: a form's roll, the GM's *Approve*, *Next turn*, *Undo*. */
let unanswered = 0;

/** `request` (a sent request's promise) counted in `unanswered` until it is answered.
 * A language chosen meanwhile is taken once none is left; a refusal keeps the page
 * as it is (its words stay beside the form: a reload would wipe them), the list back
 * on the page's language: the viewer chooses again. */
function tracked(request) {
  unanswered += 1;
  return request.then((reply) => {
    unanswered -= 1;
    // once the reply is shown (its handlers run after this one), so its line is kept
    if (!unanswered) setTimeout(changeLanguageNow, 0);
    return reply;
  }, (error) => {
    unanswered -= 1;
    if (languageLater) {
      languageLater = null;
      $("language").value = pageLanguage(locale);
    }
    throw error;
  });
}

/**
 * Ask the odds of what a form holds (its *Odds* button): nothing is rolled. The
 * answer — a table of totals or outcomes — goes under the form, its line beside
 * it and to a screen reader; a refusal (a typo, odds the ruleset does not give)
 * beside the form, and odds that would need an NPC's hidden numbers in the page's
 * words (the server's ask a client to state them in `assume`: the page has no such
 * field). One question at a time per form: the button waits for its answer.
 * @param {object} message the `odds` request, without an id
 * @param {HTMLFormElement} form the form it came from
 */
function askOdds(message, form) {
  const key = form.dataset.form;
  // asked again after a language's reload beneath a line of the form's kept across it
  const quiet = underLine.delete(key);
  const button = form.querySelector('button[name="odds"]');
  // waiting: aria-disabled, not disabled, so the focus stays on the button it was on
  if (button?.getAttribute("aria-disabled") === "true") return;
  const name = message.formula ?? session.actionLabel(message.action);
  const done = () => {
    const now = formOf(key);
    now?.querySelector('button[name="odds"]')?.removeAttribute("aria-disabled");
    return now;
  };
  button?.setAttribute("aria-disabled", "true");
  formOf(key)?.querySelector(".form-odds")?.replaceChildren();
  session.request(message).then((reply) => {
    const now = done();
    const { line, box } = renderOdds(i18n, reply, name);
    now?.querySelector(".form-odds")?.replaceChildren(box);
    if (quiet) return; // the form's line is newer than the odds: it stays
    if (now) showOutcome(now, line);
    announce(line);
  }, (error) => {
    done();
    if (error?.code !== "odds_hidden") {
      failed(error, key);
      return;
    }
    // the server's words tell a client to state the NPC in `assume`: the page cannot
    const actor = session.nameOf(error.details?.actor);
    const text = i18n.format("ROLLBRIDGE.Web.Odds.Hidden", { actor });
    say(text, "error");
    const now = formOf(key);
    if (now) showOutcome(now, text, "error", error.code);
    noteLine({ key: "ROLLBRIDGE.Web.Odds.Hidden", data: { actor }, kind: "error", code: error.code }, text, key);
  });
}

/** The forms whose line was kept across a language's reload (kept.mjs), and those
 * of them whose odds are being asked again after it: the answer fills the odds only,
 * the line beside the form is the newer. */
let linedForms = new Set();
const underLine = new Set();

/** The line of a request the GM rejected (kept.mjs), with the GM's reason when
 * there is one: the GM's own words, kept as written, the words around them said in
 * the page's language. */
function rejectedLine(reason) {
  const text = typeof reason === "string" ? reason.trim() : "";
  return keptLine(text ? { key: "ROLLBRIDGE.Web.Message.RejectedReason", data: { reason: isolated(text) } }
    : { key: "ROLLBRIDGE.Web.Message.Rejected" });
}

/** The GM approved or rejected a request of this page's: say so (beside its form
 * too). True when the event is one. */
function followAsked(event) {
  const data = event.data ?? {};
  const rejected = event.kind === "approval.rejected";
  const id = rejected ? data.pending : data.approved;
  if (id === undefined || !asked.has(id)) return false;
  const { form: key } = asked.get(id);
  settleAsked(id);
  if (rejected) sayAnswer(key, rejectedLine(data.reason));
  else sayAnswer(key, { key: "ROLLBRIDGE.Web.Message.Approved", seq: event.seq });
  return true;
}

/** Say what became of a request of this page's that waited for the GM — `line`
 * (kept.mjs: approved, rejected, not known) — on the message line and beside its
 * form `key`. */
function sayAnswer(key, answer) {
  const line = keptLine(answer);
  const form = formOf(key);
  const text = lineText(line, i18n, summaryOf) ?? "";
  say(text);
  if (form) showOutcome(form, text);
  noteLine(line, text, key);
  if (restoring) {
    // the GM answered while the page reloaded: this is newer than what was kept
    // (the request waiting), and is said beside the form once it is built
    restoring.message = null;
    if (form) delete restoring.forms[key];
    else restoring.forms[key] = keptLine(line);
  }
}

/**
 * Ask the server what became of this page's requests that waited for the GM when
 * the page could not follow their answers: the connection came back to the table as
 * it is now (what was missed could not be resent: a phone away long on a busy table),
 * the page was loaded anew (a phone's discarded tab: what it kept says they waited)
 * or the table was restored from a backup (another epoch). Each is sent again as it was
 * with `repeat` (docs/protocol.md: the server answers it as it answered the request,
 * never runs it): still waiting, approved with its result, rejected with the GM's
 * reason, or not known (`not_remembered`: the backup was taken before it, or it was
 * answered long ago). The line beside its form then says that; it said the request
 * still waited.
 * @param {Array} entries [pending id, {form, request}] of `asked` before the join
 * @param {boolean} moved the table is in another epoch: their pending ids name other
 *   requests there (they were taken out of `asked`)
 */
function askAgain(entries, moved) {
  const asking = session;
  for (const [pending, { form: key, request }] of entries) {
    if (!request) continue;
    session.request({ ...request, repeat: true }).then((reply) => {
      // joined anew since, or its answer came live meanwhile (followAsked)
      if (session !== asking || (!moved && !asked.has(pending))) return;
      refusedFor.delete(pending); // answered: a refusal for now after this is another's
      if (reply.status === "pending" && !moved && reply.pending === pending) return; // still waits
      if (!moved) settleAsked(pending);
      if (reply.status === "rejected") sayAnswer(key, rejectedLine(reply.reason));
      else if (reply.status === "done" && Number.isInteger(reply.event?.seq)) {
        see(reply.event); // its summary, for the line (the log shows the table as it is now)
        sayAnswer(key, { key: "ROLLBRIDGE.Web.Message.Approved", seq: reply.event.seq });
      } else if (reply.status === "done" && Number.isInteger(reply.seq)) {
        // a reply from the server's memory names its event only: the event itself
        // left the log the server keeps (that is why the page could not follow it)
        sayAnswer(key, { key: "ROLLBRIDGE.Web.Message.ApprovedAway", data: { seq: reply.seq } });
      } else {
        // approved in secret: its event is a placeholder this page holds or will
        if (!moved && reply.status === "secret" && Number.isInteger(reply.seq)) linkSecret(pending, reply.seq);
        answered(reply, key, request); // waiting under another id, or another reply
      }
    }, (error) => {
      if (session !== asking || (!moved && !asked.has(pending))) return;
      // refused for now past the connection's retries (nothing was done, nothing
      // answered): it still waits, and is sent again as the page's pace allows
      if (!moved && FOR_NOW.has(error?.code)) return resendLater(pending);
      if (!moved) settleAsked(pending);
      if (error?.code === "not_remembered") sayAnswer(key, { key: "ROLLBRIDGE.Web.Message.NotKnown" });
      else failed(error, key);
    });
  }
}

/** The pending id of this page's request whose GM-only event `event` is — a secret
 * placeholder at the seq its pending id counts from (the server names a request
 * waiting by the seq of its `approval.requested`: p12 is #12) — or null. */
function mineOf(event) {
  if (event.kind !== "hidden" || !Number.isInteger(event.seq)) return null;
  const pending = `p${event.seq}`;
  return asked.get(pending)?.request || answeredMine.has(pending) ? pending : null;
}

/** Whether the placeholder `event` may be another's request waiting for the GM as
 * well as a secret: on a page not the GM's, at a table whose GM approves players'
 * requests first, a GM-only event that changed no actor (an `approval.requested`
 * changes none). The server sends both as the same `hidden` placeholder, and a
 * player's request is not secret: it was heard as *secret (GM only)* whenever another
 * player asked. Such a placeholder is told to a screen reader as its entry says it:
 * that it may be either (once the answer is seen, the entry says it was a request:
 * noteAnswer). Not told at all, the GM's secret roll — a fact of the table every
 * page's log shows — was never heard there. */
function mayBeAsked(event) {
  return event.kind === "hidden" && session?.role !== "gm" && session?.table?.settings?.approval === true
    && !(Array.isArray(event.actors) && event.actors.length);
}

/** The log entry of `event`: the viewer's own request waiting for the GM as what the
 * viewer asked (a player's page gets a secret placeholder of it), else the event. */
function entryOf(event) {
  const pending = mineOf(event);
  const nameOf = (id) => session.nameOf(id);
  if (pending) {
    const request = asked.get(pending)?.request ?? answeredMine.get(pending);
    const entry = renderMine(event.seq, pending, request, nameOf, { ...session.words(), waits: asked.has(pending) });
    if (mineSecret.has(pending)) sayLinked(entry, pending);
    return entry;
  }
  const entry = renderEvent(event, nameOf, { lang: locale, ...session.words() });
  const asking = event.kind === "hidden" ? `p${event.seq}` : null;
  const approvedMine = event.kind === "hidden" ? secretOf(event.seq) : null;
  if (approvedMine) sayLinked(entry, approvedMine);
  else if (answeredAt.has(asking)) entry.querySelector(".kind").textContent = askedWords(asking);
  else if (mayBeAsked(event)) entry.querySelector(".kind").textContent = i18n.localize("ROLLBRIDGE.Web.Log.HiddenOrAsked");
  return entry;
}

/** The request `pending` of this page's now waits for the GM: its entry in the log,
 * the placeholder its event came in as before the reply did, says what it asks. */
function showMine(pending) {
  const seq = Number(pending.slice(1));
  const placeholder = $("log").querySelector(`li.kind-hidden[data-seq="${seq}"]`);
  if (!placeholder || !asked.get(pending)?.request) return;
  placeholder.replaceWith(renderMine(seq, pending, asked.get(pending).request, (id) => session.nameOf(id),
    session.words()));
}

/** The request `pending` of this page's waits no more (the GM answered it, or the
 * server no longer knows it): no longer followed, and its entry says so. */
function settleAsked(pending) {
  const request = asked.get(pending)?.request;
  asked.delete(pending);
  if (request) answeredMine.set(pending, request);
  while (answeredMine.size > MAX_ANSWERED) answeredMine.delete(answeredMine.keys().next().value);
  const entry = $("log").querySelector(`li.kind-mine[data-pending="${pending}"]`);
  if (entry) showMineWaits(entry, false);
}

/** The pending id of this page's request the GM approved in secret whose event is
 * `seq`, or null. */
function secretOf(seq) {
  for (const [pending, at] of mineSecret) if (at === seq) return pending;
  return null;
}

/** Say in the log entry `entry` — the request's own (renderMine) or its event's
 * placeholder — how this page's request `pending` approved in secret and its event
 * go together: *approved: #13, in secret*; *your request (p12), approved in secret*. */
function sayLinked(entry, pending) {
  const kind = entry.querySelector(".kind");
  if (!kind) return;
  kind.textContent = entry.classList.contains("kind-mine")
    ? i18n.format("ROLLBRIDGE.Web.Log.MineSecret", { seq: mineSecret.get(pending) })
    : i18n.format("ROLLBRIDGE.Web.Log.MineHidden", { pending });
}

/** This page's request `pending` was approved in secret, its event `seq` (the server's
 * reply to it sent again): the log's two entries say so, each naming the other. */
function linkSecret(pending, seq) {
  mineSecret.delete(pending);
  mineSecret.set(pending, seq);
  while (mineSecret.size > MAX_ANSWERED) mineSecret.delete(mineSecret.keys().next().value);
  const log = $("log");
  for (const entry of [log.querySelector(`li.kind-mine[data-pending="${pending}"]`),
    log.querySelector(`li.kind-hidden[data-seq="${seq}"]`)]) {
    if (entry) sayLinked(entry, pending);
  }
}

/** A page's resends of its secret requests (askSecretAnswers): RESEND_BURST at once,
 * then one each RESEND_MS. Every frame counts against the connection's rate and the
 * table's (docs/protocol.md, "Limits": 50 a second at a table, bursts of 100): each
 * page sent every secret request of its again at each placeholder — 8 players with 8
 * requests waiting (the most the server holds) sent 64 frames a placeholder, and two
 * placeholders emptied the table's burst, the GM's own next request refused. Now 8
 * pages send 16 at once and 16 a second at most. */
const RESEND_BURST = 2;
const RESEND_MS = 500;
/** This page's secret requests waiting, by pending id: the seq of the newest
 * placeholder it was sent again for (a placeholder at or before it is not its answer). */
const resentFor = new Map();
/** The seq of the newest placeholder that came, the resends it may still need. */
let resendDue = 0;
/** Resends the page may send now (RESEND_BURST at most), and the timer that gives one
 * more each RESEND_MS while fewer. */
let resendCredit = RESEND_BURST;
let resendTimer = null;

/** Whether the page's request `request` is answered, approved, by a placeholder
 * naming nothing: a secret request, or an action the ruleset always keeps secret. */
const answeredHidden = (request) => request && (request.secret === true
  || (request.type === "resolve" && session.alwaysSecret(request.action)));

/** A `hidden` placeholder `seq` came: it may be the GM's approval of a request of this
 * page's that is secret (a secret roll, an action the ruleset always keeps secret),
 * which names nothing a player reads. Those requests are sent again (`repeat`): the
 * server answers what became of each (askAgain), and one approved in secret is linked
 * to its placeholder (linkSecret). Each once for the placeholders that came since it
 * was last sent (its own `approval.requested`, p12's #12, is none of them), the oldest
 * first, as fast as the page's share of the rate allows (resendSome). */
function askSecretAnswers(seq) {
  if (session?.role === "gm" || !Number.isInteger(seq)) return;
  resendDue = Math.max(resendDue, seq);
  resendSome();
}

/** Send again what is due of askSecretAnswers as far as the page's credit goes; while
 * the credit is short, one more each RESEND_MS, and what is due then. */
function resendSome() {
  for (const pending of resentFor.keys()) if (!asked.has(pending)) resentFor.delete(pending);
  // the join's questions first (askAtJoin), those of another join or answered since
  // left out
  joinAsks.splice(0, joinAsks.length, ...joinAsks.filter(({ of, moved, entry: [pending] }) => of === session
    && (moved || asked.has(pending))));
  const asking = joinAsks.splice(0, resendCredit);
  resendCredit -= asking.length;
  for (const moved of [false, true]) {
    const entries = asking.filter((ask) => ask.moved === moved).map((ask) => ask.entry);
    if (entries.length) askAgain(entries, moved);
  }
  const due = [...asked].filter(([pending, { request }]) => !joinAsks.some((ask) => ask.entry[0] === pending)
    && ((dueLater.has(pending) && request)
    || (answeredHidden(request) && Math.max(resentFor.get(pending) ?? 0, Number(pending.slice(1)) || 0) < resendDue)));
  const now = due.slice(0, resendCredit);
  resendCredit -= now.length;
  for (const [pending] of now) {
    dueLater.delete(pending);
    resentFor.set(pending, resendDue);
  }
  if (now.length) askAgain(now, false);
  if (resendTimer === null && (resendCredit < RESEND_BURST || joinAsks.length)) {
    resendTimer = setTimeout(() => {
      resendTimer = null;
      resendCredit = Math.min(RESEND_BURST, resendCredit + 1);
      resendSome();
    }, RESEND_MS);
  }
}

/** Refusals of a request sent again that answer nothing of it: the server did
 * nothing, for now (too many requests at the table or on the connection, too many
 * changes waiting for its disk), and the connection's own retries were spent
 * (adapters/client/connection.mjs). */
const FOR_NOW = new Set(["rate_limited", "busy"]);

/** Times a request of this page's sent again and refused for now (FOR_NOW) is sent
 * again by itself, each after twice the wait before it (RESEND_MS × 2, × 4, × 8);
 * past them it waits for what makes it due anew: the next placeholder (a secret
 * request) or the next join. Sent again at once after each refusal, a page kept a
 * busy table busy for as long as it was refused: every frame of it (the connection's
 * five retries each time) counts against the table's rate. */
const LATER_TRIES = 3;
/** This page's requests refused for now, by pending id: how often since the page
 * joined or the server last answered them. */
const refusedFor = new Map();
/** This page's requests due again whatever the placeholders: refused for now, their
 * wait over (resendSome sends them at the page's pace). */
const dueLater = new Set();

/** The request `pending` of this page's, sent again, was refused for now (FOR_NOW):
 * it still waits, and is due again after a wait, sent once the page's pace allows
 * (resendSome), LATER_TRIES times at most. It was marked answered — *no longer
 * waiting*, the refusal beside its form — and the GM's approval in secret was never
 * linked to its event; a request the GM answered while the page was away, asked again
 * as the page joined, was never asked again. */
function resendLater(pending) {
  const tries = (refusedFor.get(pending) ?? 0) + 1;
  refusedFor.set(pending, tries);
  if (tries > LATER_TRIES) return;
  const asking = session;
  setTimeout(() => {
    if (session !== asking || !asked.has(pending)) return;
    dueLater.add(pending);
    resendSome();
  }, RESEND_MS * 2 ** tries);
}

/** The requests a join asks what became of (askAtJoin), not sent yet: {of: the
 * session that joined, moved: the table is in another epoch, entry: [pending id,
 * {form, request}]}, the oldest first. */
const joinAsks = [];

/** Ask what became of `entries`, this page's requests that waited for the GM when it
 * joined (askAgain), at the pace of the page's other resends (resendSome): RESEND_BURST
 * at once, then one each RESEND_MS. Asked all at once, a page of 8 requests waiting
 * sent 8 frames in the join's breath, each counted against the connection's rate and
 * the table's, and 8 such pages rejoining after a restart sent 64. */
function askAtJoin(entries, moved) {
  // of a join before of this session, those of another epoch only (asked nowhere
  // else): the rest still waiting are among `entries` (all asked) — kept, a join
  // while its questions waited their turn asked each of them twice
  joinAsks.splice(0, joinAsks.length, ...joinAsks.filter((ask) => ask.of === session && ask.moved));
  for (const entry of entries) if (entry[1]?.request) joinAsks.push({ of: session, moved, entry });
  resendSome();
}

/** Forget the resends (another table's seqs, or another viewer's requests). */
function forgetResends() {
  resentFor.clear();
  refusedFor.clear();
  dueLater.clear();
  resendDue = 0;
}

/** What the page would tell a screen reader of the live events that came while a
 * request of this page's that could be answered by a secret placeholder of its own
 * waited for its reply (mayHideMine), in the order they came: {seq, line}, `seq` that
 * of a placeholder (null for any other event's line, held behind it to keep the order). */
const toldLater = [];

/** Whether a request of this page's waiting for its reply could make a GM-only event,
 * which reaches this page as a secret placeholder before that reply names it: a
 * player's roll or action at a table whose GM approves players' requests first (its
 * `approval.requested`), a secret request, or an action the ruleset always keeps
 * secret (its placeholder was told, then the reply's *only the GM sees it*: heard
 * twice). Any other placeholder is another's. */
function mayHideMine() {
  const approval = session?.role === "player" && session.table?.settings?.approval === true;
  return [...waiting.values()].some(({ request }) => request.secret === true
    || (request.type === "resolve" && session?.alwaysSecret(request.action))
    || (approval && (request.type === "roll" || request.type === "resolve")));
}

/** Tell a screen reader `line` of the live event `seq` (a secret placeholder's, or
 * null): at once, unless a line is held (toldLater) or this is a placeholder that may
 * be of this page's own request waiting for its reply: then once that is answered. */
function tellInOrder(line, seq = null) {
  if (toldLater.length || (seq !== null && mayHideMine())) toldLater.push({ seq, line });
  else announce(line);
}

/** A request of this page's answered (`own`: the seq of its own GM-only event, which
 * the message line says, or null): the lines held meanwhile are told to a screen
 * reader, in order, once no request that may be of a placeholder waits — but the
 * placeholder of the request itself: heard as a secret, it was the player's own roll. */
function tellSecrets(own = null) {
  const at = toldLater.findIndex(({ seq }) => seq !== null && seq === own);
  if (at >= 0) toldLater.splice(at, 1);
  if (mayHideMine()) return;
  for (const { line } of toldLater.splice(0)) announce(line);
}

/** The GM undid (or redid) an event whose result a line says — beside the form that
 * asked for it (a roll's, an action's, *the GM approved it: …*) or on the message line:
 * that line says it was undone (no more, once redone). It went on saying the result,
 * which no longer stood, while the log's undo named only the event's number. */
function followUndo(event) {
  const data = event.data ?? {};
  const seq = event.kind === "undo" ? data.undoes : event.kind === "redo" ? data.redoes : undefined;
  if (Number.isInteger(seq)) markUndone(seq, event.kind === "undo", event.seq);
}

/** The GM has undone the event `seq` (`undone`), or redone it, as of the seq `by` (an
 * undo's or redo's, or the table's in a `state` reply): the lines that say its result
 * say so. An older word on it than the one the page has says nothing now (the log from
 * before comes in after the live events that came while it loaded). */
function markUndone(seq, undone, by) {
  if ((undoneNow.get(seq)?.by ?? 0) > by) return;
  undoneNow.set(seq, { undone, by });
  while (undoneNow.size > MAX_ENTRIES) undoneNow.delete(undoneNow.keys().next().value);
  /** The line `entry` ({line, text}) said again, if it names the event and is still
   * shown (`shown`: what its place says now); `show` puts the new text there. */
  const restate = (entry, shown, show) => {
    if (!entry?.line || entry.line.seq !== seq || shown !== entry.text) return;
    const line = keptLine({ ...entry.line, undone });
    if (line && entry.line.gone) line.gone = true; // named by its number: the log has it not
    const text = line && lineText(line, i18n, summaryOf);
    if (!text) return;
    show(text, line);
    entry.line = line;
    entry.text = text;
  };
  restate(lines.message, $("message").textContent, (text, line) => {
    say(text, line.kind);
    $("message").dataset.code = line.code;
  });
  for (const [key, entry] of lines.forms) {
    const form = formOf(key);
    restate(entry, form?.querySelector(".form-status")?.textContent, (text, line) => {
      showOutcome(form, text, line.kind, line.code);
    });
  }
}

/**
 * Ask the server whether the GM has undone the events the page's lines name, where
 * the page could not follow their undos and redos (`state`'s `undone`,
 * docs/protocol.md): loaded anew, a line naming an event before the log it read from
 * before (`from`: its first seq; the undo of a later one is in that log), or back
 * from a resume the server could not recover (`from` null: every line, the events
 * missed are not coming). A server from before the field refuses it: the lines stay.
 * @param {number|null} from the first seq of the log read, or null
 */
function askUndone(from) {
  const asking = session;
  const seqs = new Set();
  for (const entry of [lines.message, ...lines.forms.values()]) {
    const seq = entry?.line?.seq;
    if (Number.isInteger(seq) && (from === null || seq < from)) seqs.add(seq);
  }
  if (!seqs.size) return;
  session.request({ type: "state", undone: [...seqs].slice(0, 50) }).then((reply) => {
    if (session !== asking || !reply?.undone || typeof reply.undone !== "object") return;
    const by = Number.isInteger(reply.table?.seq) ? reply.table.seq : 0;
    // a seq left out: no undo or redo of it the server holds, so none since the page's
    // own word on it (what the line says stands)
    for (const seq of seqs) {
      if (typeof reply.undone[seq] === "boolean") markUndone(seq, reply.undone[seq], by);
    }
  }, () => {});
}

/** A live event for the log, the statistics, and a screen reader. */
function liveEvent(event, { replayed } = {}) {
  stats.note(event);
  see(event);
  const mine = mineOf(event);
  addEntry(entryOf(event));
  followUndo(event);
  if (event.kind === "hidden" && !replayed) askSecretAnswers(event.seq);
  // the GM's answer to this page's request is said on the message line, a status a
  // screen reader reads as it changes: announced too, it was heard twice
  const followed = followAsked(event);
  const own = [...waiting.values()].some((entry) => entry.request.id === event.request);
  // the viewer's own request waiting: the message line says so
  if (replayed || followed || mine || !(own || ANNOUNCED.has(event.kind))) return;
  const summary = eventSummary(event, (id) => session.nameOf(id), session.words());
  // a placeholder that may be another's request as well as a secret is told as its
  // entry says it (it was not told: the GM's secret roll, which every page's log
  // shows, was never heard at a table with approval)
  const line = mayBeAsked(event) ? i18n.localize("ROLLBRIDGE.Web.Log.HiddenOrAsked")
    : took(event, summary) ?? [kindWord(i18n, event.kind), summary].filter(Boolean).join(": ");
  // a placeholder may be of this page's request waiting (its event comes before its
  // reply): then told once the request is answered, unless it is
  tellInOrder(own ? i18n.format("ROLLBRIDGE.Web.Announce.Own", { result: summary || line }) : line,
    event.kind === "hidden" ? event.seq : null);
}

/** What a screen reader is told of an undo or redo: what it took (*undo of #5
 * (action)*), then that event's line as this page's log says it — a player's with an
 * NPC's numbers left out, as its event left them out — or null for any other event
 * (and the number alone where the page has not seen that event, or its line says
 * nothing: a secret's placeholder). It said the number and the kind's word only. */
function took(event, summary) {
  const data = event.data ?? {};
  const target = event.kind === "undo" ? data.undoes : event.kind === "redo" ? data.redoes : undefined;
  if (target === undefined) return null;
  const undone = seen.get(target);
  const said = undone ? eventSummary(undone, (id) => session.nameOf(id), session.words()) : "";
  return [summary, said].filter(Boolean).join(": ");
}

const stats = new StatsPanel({
  form: $("stats-form"),
  scope: $("stats-scope"),
  box: $("stats"),
  request: (message) => session.request(message),
  onError: (text) => say(text, "error"),
});

function drawTable() {
  stats.refresh(Boolean(session.table.encounter));
  showLogHint($("log-download"), i18n, session.table.settings?.verifiable === true);
  $("actors").replaceChildren(...actorCards(session));
  replaceKeepingFocus($("encounter"), encounterView(session, send));
  showWaitingJump(session.role === "gm" ? (session.table.pending ?? []).length : 0);
  if (session.role === "gm") {
    replaceKeepingFocus($("pending"), pendingList(session, send));
    showHistory($("history"), session, send, kindOf);
  }
  const key = JSON.stringify([session.role, [...session.actors.values()].map((a) => [a.id, a.name, a.controllers,
    (a.common?.tracks ?? []).map((t) => t.key)]), choicesKey()]);
  if (key !== formsKey) {
    formsKey = key;
    buildForms();
  }
  restoreLines();
}

/** What the forms' sheet choices are made of: what each actor the viewer acts for
 * offers for each parameter whose choices are on the sheet (`choicesFrom`), and
 * what each actor it may target offers for each parameter whose choices are on the
 * target's (`"of": "target"`), so a weapon added, an item donned or a vehicle
 * mounted rebuilds the forms (keeping what was typed and chosen). */
function choicesKey() {
  const params = Object.values(session.ruleset?.actions ?? {})
    .flatMap((spec) => Object.values(spec.params?.properties ?? {}))
    .filter((schema) => schema?.choicesFrom);
  if (!params.length) return [];
  const [own, targets] = [params.filter((schema) => !ofTarget(schema)), params.filter(ofTarget)];
  const offered = (actors, schemas) => actors.map((actor) => schemas.map((schema) => sheetChoices(schema, actor)));
  return [offered(session.controllable(), own), offered([...session.actors.values()], targets)];
}

function buildForms() {
  const acting = session.role === "gm" || session.role === "player";
  $("act-panel").hidden = !acting;
  $("gm-panel").hidden = session.role !== "gm";
  showJumps(waitingCount); // the roll form's shortcut follows the forms
  // the GM's log keeps a room under its last entry for the button of the requests
  // waiting, there whether or not it shows (web.css): nothing moves as it comes
  $("log").classList.toggle("log-room", session.role === "gm");
  // what was typed before a language's reload: put back once, in the forms first built
  const kept = restoringForms;
  restoringForms = null;
  if (!acting) return;
  if (kept) keepSoon(); // taken from the tab as it loaded: kept again, for a tab killed now
  if (kept?.cut) {
    // some of what was typed did not fit the tab's share for the reload: said, not lost unsaid
    const line = keptLine({ key: "ROLLBRIDGE.Web.Message.DraftsCut" });
    const text = i18n.localize(line.key);
    say(text);
    noteLine(line, text);
  }
  replaceKeeping($("roll"), rollForm(session, send, askOdds));
  putKept($("roll"), kept);
  const actions = Object.entries(session.ruleset?.actions ?? {})
    .filter(([, spec]) => session.role === "gm" || !spec.gm_only);
  const chooser = $("action-select");
  const chosen = kept?.action ?? chooser.value;
  chooser.replaceChildren(...actions.map(([name, spec]) => new Option(spec.label || name, name)));
  if (actions.some(([name]) => name === chosen)) chooser.value = chosen;
  // the other actions' forms as typed before the reload: each put back when chosen
  for (const [key, state] of Object.entries(kept?.forms ?? {})) {
    if (key.startsWith("action:") && key !== `action:${kept.action}`) drafts.set(key, state);
  }
  const showAction = () => {
    const spec = session.ruleset?.actions?.[chooser.value];
    const before = $("action").querySelector("form[data-form]")?.dataset.form;
    keepDraft($("action"));
    const built = spec ? actionForm(session, chooser.value, spec, send, askOdds) : null;
    if (built) builtAs.set(built, draftOf(built)); // before anything is put back in it
    replaceKeeping($("action"), built ?? el("p", "empty", i18n.localize("ROLLBRIDGE.Web.Message.NoActions")));
    // another action chosen: what was typed in it before comes back
    const now = $("action").querySelector("form[data-form]");
    if (now && now.dataset.form !== before && drafts.has(now.dataset.form)) restoreState(now, drafts.get(now.dataset.form));
    showForms();
    restoreLines(); // a line kept before a language's reload, beside the action chosen again
  };
  chooser.onchange = showAction;
  showAction();
  putKept($("action"), kept);
  if (session.role === "gm") {
    replaceKeeping($("adjust"), adjustForm(session, send));
    putKept($("adjust"), kept);
  }
  showForms();
  // the odds shown before the reload are asked again: the server's answer, in this
  // language; under a form whose line was kept (newer than the odds: the roll asked
  // after them waits for the GM, who rejected it with a reason…) they leave that line
  for (const key of kept?.odds ?? []) {
    if (linedForms.has(key)) underLine.add(key);
    formOf(key)?.querySelector('button[name="odds"]')?.click();
  }
  underLine.clear(); // asked at the click, or not at all (the form said why): the next are the viewer's
}

/** Note an event the page has seen (a kept line may name it), the latest MAX_ENTRIES. */
function see(event) {
  if (!Number.isInteger(event.seq)) return;
  seen.set(event.seq, event);
  // the log from before's too: an actor it names may be gone from the table since
  session?.noteNames(event.actors);
  while (seen.size > MAX_ENTRIES) seen.delete(seen.keys().next().value);
  noteAnswer(event);
  if (restoring) restoreLines();
}

/** An event that answers a request waiting for the GM (approved or rejected): the
 * placeholder of its `approval.requested`, shown already or to come, says it was a
 * request and where its answer is — not a secret, nor "secret, or a request". */
function noteAnswer(event) {
  const data = event.data ?? {};
  const pending = event.kind === "approval.rejected" ? data.pending : data.approved;
  if (typeof pending !== "string" || !/^p\d+$/.test(pending)) return;
  answeredAt.set(pending, event.seq);
  while (answeredAt.size > MAX_ENTRIES) answeredAt.delete(answeredAt.keys().next().value);
  const kind = $("log").querySelector(`li.kind-hidden[data-seq="${pending.slice(1)}"] .kind`);
  if (kind) kind.textContent = askedWords(pending);
}

/** The kind's words of the placeholder of the request `pending`, answered. */
function askedWords(pending) {
  return i18n.format("ROLLBRIDGE.Web.Log.AskedAnswered", { pending, seq: answeredAt.get(pending) });
}

/** The seqs the log shows: an event is shown once, whether it came live or from history. */
const shown = new Set();

/** The kind of the event `seq` as the page has seen it (live, or in the log from
 * before), or null. */
const kindOf = (seq) => seen.get(seq)?.kind ?? null;

/** Put a log entry in its place (newest first: a live event goes on top, an event
 * from history below the newer ones). */
function addEntry(node) {
  const log = $("log");
  const seq = Number(node.dataset.seq);
  if (node.dataset.seq === undefined) {
    keepingPlace(log, () => log.prepend(node));
  } else {
    if (shown.has(seq)) return;
    shown.add(seq);
    const later = [...log.children].find((child) => child.dataset.seq !== undefined && Number(child.dataset.seq) < seq);
    keepingPlace(log, () => log.insertBefore(node, later ?? null));
  }
  // the newest on top, out of sight of a viewer reading older entries: the button
  // above the log says how many came, and brings them back
  if (node === log.firstElementChild && log.scrollTop > 1) {
    newerAbove += 1;
    showNewer();
  }
  while (log.childElementCount > MAX_ENTRIES) log.lastElementChild.remove();
}

/** Entries that came in on top of the log while the viewer read older ones (the
 * log scrolled down, where a new result is out of sight). */
let newerAbove = 0;

/** The button above the log: how many entries came in above, hidden when none. */
function showNewer() {
  const button = $("log-newer");
  button.hidden = newerAbove === 0;
  button.textContent = newerAbove ? counted(i18n, "ROLLBRIDGE.Web.Log.Newer", newerAbove) : "";
}

/**
 * Make a change to the log (`insert`) keeping the entry the viewer reads where it is
 * on the screen: an entry put above it (the newest goes on top) pushed it down, out
 * of sight, while the GM read the evening's older results. At the log's top nothing
 * is kept: the new entry shows. (CSS scroll anchoring does this in Chromium and
 * Firefox but not in Safari; the log turns it off and does it itself.)
 */
function keepingPlace(log, insert) {
  if (log.scrollTop <= 1) {
    insert();
    return;
  }
  const top = log.getBoundingClientRect().top;
  const anchor = [...log.children].find((child) => child.getBoundingClientRect().bottom > top);
  const offset = anchor?.getBoundingClientRect().top;
  insert();
  if (anchor?.isConnected) log.scrollTop += anchor.getBoundingClientRect().top - offset;
}

/** Empty the log (another join, *Leave*, a link that no longer works). */
function clearLog() {
  $("log").replaceChildren();
  showWaitingJump(0);
  newerAbove = 0;
  showNewer();
}

/** Back to the newest entries (the button above the log): the log scrolled to its
 * top and given the focus (the button goes), so the keys scroll it from there. */
function toNewest() {
  const log = $("log");
  log.scrollTop = 0;
  newerAbove = 0;
  showNewer();
  log.focus();
}

$("log-newer").addEventListener("click", toNewest);

/** Three columns (web.css's breakpoint): the log's panel under the log, in view. */
const wide = window.matchMedia("(min-width: 64em)");
let waitingCount = 0;

/** The button over the log's bottom edge: how many requests wait for the GM's
 * approval (the GM's page only; hidden when none). On a 768 px laptop the list of
 * them starts below the screen's edge, under the forms: nothing in view said that a
 * player waited. On a phone it says it in a few words on one line (the long words
 * wrapped to three lines, 95 px in Russian, over the log's last entry), the long
 * words its accessible name and title. */
function showWaitingJump(count) {
  waitingCount = count;
  showJumps(count);
  const button = $("log-waiting");
  const focused = document.activeElement === button;
  const full = count ? counted(i18n, "ROLLBRIDGE.Web.Log.Waiting", count) : "";
  button.hidden = count === 0;
  button.textContent = count && !wide.matches ? counted(i18n, "ROLLBRIDGE.Web.Log.WaitingShort", count) : full;
  if (count) {
    button.setAttribute("aria-label", full);
    button.title = full;
  } else {
    button.removeAttribute("aria-label");
    button.removeAttribute("title");
  }
  // gone under the keyboard's focus (the last request answered by another GM, or
  // Foundry): the list, which says that nothing waits, takes it (the focus went to
  // the page's top)
  if (focused && button.hidden && !$("gm-panel").hidden) {
    $("pending").tabIndex = -1; // focusable by script only, as replaceKeepingFocus does
    $("pending").focus();
  }
}

// a phone turned sideways past the breakpoint, a window widened: its words anew
wide.addEventListener("change", () => showWaitingJump(waitingCount));

/** Bring `control` into view (the middle of the screen) and give it the focus. */
function goTo(control) {
  if (!control) return;
  control.scrollIntoView({ block: "center" });
  control.focus({ preventScroll: true });
}

// pressed: the first request's Approve takes the focus, scrolled into view
const toWaiting = () => goTo($("pending").querySelector("button[name='approve']"));
$("log-waiting").addEventListener("click", toWaiting);
// a tablet's shortcuts (web.css shows them): the roll form's field, the first Approve
$("jump-waiting").addEventListener("click", toWaiting);
$("jump-roll").addEventListener("click", () => goTo($("roll").querySelector("input[name='formula']")));

/** The tablet's shortcuts as the page stands: to the roll form where the viewer may
 * roll, to the requests waiting where there are any (the GM's: `count`, its words as
 * the log's button says them on a phone); none shown, the row is hidden. */
function showJumps(count) {
  const roll = $("jump-roll");
  const waitingJump = $("jump-waiting");
  const focused = document.activeElement === waitingJump;
  roll.hidden = $("act-panel").hidden;
  waitingJump.hidden = count === 0;
  // gone under the keyboard's focus (the last request answered elsewhere): the list,
  // which says nothing waits, takes it, as from the log's button
  if (focused && waitingJump.hidden && !$("gm-panel").hidden) {
    $("pending").tabIndex = -1;
    $("pending").focus();
  }
  waitingJump.textContent = count ? counted(i18n, "ROLLBRIDGE.Web.Log.WaitingShort", count) : "";
  $("jumps").hidden = roll.hidden && waitingJump.hidden;
}
// read up to the top by scrolling: nothing is out of sight any more
$("log").addEventListener("scroll", () => {
  if (newerAbove && $("log").scrollTop <= 1) {
    newerAbove = 0;
    showNewer();
  }
});

/** The log from before this page joined (the session log export); the seq it starts
 * at (past the welcome's when it holds nothing). */
async function addHistory(token, welcome) {
  const events = await fetchHistory({ table: tableId, token, locale: welcome.locale, upTo: welcome.seq });
  // the names of all of it first: an actor removed since, whose creation is further
  // back, is named by a later event's view (an update) — its earlier lines read *an
  // actor*, the name it had one line below. The latest first: a line before any view of
  // it names it as the nearest view after it does (the name it had then, not a later
  // rename's); each line after a view, as that view (see, in order below).
  for (const event of [...events].reverse()) session?.noteNames(event.actors);
  for (const event of events) {
    stats.note(event);
    see(event);
    addEntry(entryOf(event));
    // a request of this page's the GM answered while the page reloaded (a language
    // chosen): its answer is in this log only, said as a live one is
    followAsked(event);
    // and a result a line says, undone or redone by the GM while the page was away
    // (a phone's discarded tab): the line kept says it as it was when kept
    followUndo(event);
  }
  document.body.dataset.history = String(events.length);
  // the log read starts here: an undo of a later event is in it
  return events.length ? events[0].seq : welcome.seq + 1;
}

/** The epoch of the table whose events the log shows (the welcome's), null before
 * the page first joins. */
let logEpoch = null;

function joined(token, welcome, { first }) {
  rememberToken(tableId, token); // a reload of this tab joins again
  acceptedToken = token;
  joinedAs = `${welcome.role}:${welcome.name}`;
  const epoch = welcome.epoch ?? null;
  // this viewer's requests waiting for the GM, whose answers a snapshot leaves unknown
  // — a resume the server could not recover, another epoch (a restore), or a page
  // loaded anew (a phone's discarded tab, whose log from before holds only the latest
  // events the server keeps): asked again
  const mine = joinedAs === askedOf.identity ? [...asked] : [];
  const moved = epoch !== askedOf.epoch;
  // the table restored from a backup while the page was connected (another epoch):
  // the restored table counts seqs again from the backup's, and the log held the
  // table before — every event of the restored table whose seq it held was left out
  // (the GM's next rolls nowhere in it), and a request of this page's waiting there
  // took the place of another's old entry of its seq. Its log is loaded anew.
  const renewed = !first && logEpoch !== null && epoch !== logEpoch;
  logEpoch = epoch;
  if (renewed) {
    clearLog();
    stats.reset();
    shown.clear();
    seen.clear();
    answeredAt.clear();
    toldLater.length = 0;
  }
  if (joinedAs !== askedOf.identity || epoch !== askedOf.epoch) {
    // another identity joined in this tab, or the table was restored (a new epoch)
    // since this page's requests were made or the lines kept before its reload were
    // said: they are not this viewer's, or their answers are not coming (what has
    // their ids and seqs now is another request's)
    for (const pending of [...asked.keys()]) settleAsked(pending);
    // nor are the seqs it knew: they name other events there
    answeredMine.clear();
    mineSecret.clear();
    forgetResends();
    undoneNow.clear();
    restoring = null;
    linedForms.clear();
    if (epoch !== askedOf.epoch) forgetEventLines();
    askedOf = { identity: joinedAs, epoch };
  }
  if (first) {
    // what was typed before a language's reload, for this identity only, once
    restoringForms = formsFor(keptForms, joinedAs);
    keptForms = null;
    // the GM's reasons being written, before the waiting list is first drawn
    reopenReasons(restoringForms?.reasons);
  }
  $("join").hidden = true;
  $("table").hidden = false;
  $("leave").hidden = false;
  const table = welcome.table ?? {};
  $("title").textContent = `${table.name ?? tableId} · ${table.ruleset ?? ""}`;
  showLogDownload($("log-download"), {
    table: tableId, token, locale: welcome.locale, audience: welcome.role, verifiable: table.settings?.verifiable === true, i18n,
    latestSeq: () => session?.connection.cursor?.seq ?? welcome.seq ?? 0,
  });
  document.title = `${table.name ?? tableId} — rollbridge`;
  // the role in the page's words, and the name when it is not the role's, as the log
  // says who made an event: a German observer read *Beobachter (observer)*
  const who = byLabel(`${welcome.role}:${welcome.name}`);
  $("role").textContent = who;
  // cut short with an ellipsis on a laptop's bar: the whole on hover, and under the
  // bar while it has the focus or once pressed (its text, whole, is what a screen
  // reader reads)
  $("role").title = who;
  showWhoWhole();
  // the server's texts on the page are in the language it answered in
  $("table").lang = welcome.locale ?? "en";
  if (!first) {
    addEntry(el("li", "entry entry-gap", i18n.localize("ROLLBRIDGE.Web.Message.Gap")));
  }
  formsKey = null;
  // a page loaded anew asks once the log from before is in: an answer it holds is
  // said with its result (the server's memory of a reply may name its seq only)
  const joining = session;
  if (first || renewed) {
    // a log from before that failed to show: every line asks (null)
    addHistory(token, welcome).catch(() => null).then((from) => {
      restoreLines(true);
      if (session !== joining) return;
      // the kinds of the events undo and redo take, now in from the log from before
      if (session.role === "gm") showHistory($("history"), session, send, kindOf);
      askAtJoin(mine, moved);
      askUndone(from);
    });
  } else {
    askAtJoin(mine, moved);
    askUndone(null); // the events missed are not coming: what undid a line's event among them
  }
  const notice = localeNotice(welcome, locale);
  if (notice) say(notice.message);
  // the join form that had the focus is gone: the table's heading takes it
  const focused = document.activeElement;
  if (first && (!focused || focused === document.body || $("join").contains(focused))) $("title").focus();
}

/** Whether a screen reader was told the connection was lost (and is to hear it back). */
let lost = false;
/** Whether the message line says why the server refused a hello for now. */
let refusedForNow = false;

/** The connection's status in the top bar, "offline" at once while the browser
 * has no network (the socket notices at its next ping only); the forms' buttons
 * and a screen reader follow it. */
function showStatus(status = session?.connection.status ?? "off", detail = null) {
  if (!worded) return; // "loading…" until the words are in (they show the status then)
  const offline = navigator.onLine === false && !["refused", "stopped", "off"].includes(status);
  document.body.dataset.status = offline ? "offline" : status;
  $("status").textContent = offline ? i18n.localize("ROLLBRIDGE.Web.Connection.Offline")
    : labelOf(i18n, CONNECTION_LABELS, status);
  hideReconnect(!(offline || status === "waiting"));
  showForms();
  if (!lost && (offline || (status === "waiting" && detail?.reason !== "gap"))) {
    lost = true;
    announce($("status").textContent);
  } else if (lost && status === "connected" && !offline) {
    lost = false;
    announce(i18n.localize("ROLLBRIDGE.Web.Announce.Restored"));
  }
}

/** Hide (or show) the top bar's *Reconnect now*. Hidden while it has the focus (the
 * viewer pressed it, and the line is back) the focus goes to the table's heading, as
 * after joining: it fell to the page's body, and a keyboard or a screen reader started
 * again from the top of the page. */
function hideReconnect(hidden) {
  const button = $("reconnect");
  const focused = hidden && !button.hidden && document.activeElement === button;
  button.hidden = hidden;
  if (focused) $("title").focus();
}

/** Try the connection at once (the network or the page came back, or the viewer asked). */
function nudge() {
  showStatus();
  session?.connection.nudge();
}

/** The token this page joins or has joined with, until it is refused or the viewer leaves. */
let joinToken = null;
/** The token the server accepted (a welcome came), the one the tab keeps. */
let acceptedToken = null;

function join(token) {
  joinToken = token;
  joinedAs = null;
  if (!tableId) {
    afterWords(() => say(i18n.localize("ROLLBRIDGE.Web.Message.NoTable"), "error"))();
    return;
  }
  clearLog();
  stats.reset();
  shown.clear();
  seen.clear();
  answeredAt.clear();
  undoneNow.clear();
  logEpoch = null;
  waiting.clear();
  toldLater.length = 0;
  asked.clear();
  answeredMine.clear();
  mineSecret.clear();
  forgetResends();
  lines.message = null;
  lines.forms.clear();
  // another join (a token typed in after *Leave*): the drafts, and the action form
  // they are taken from, were the last viewer's
  drafts.clear();
  $("action").replaceChildren();
  lost = false;
  session = new Session({
    table: tableId,
    token,
    url: socketUrl(location, tableId),
    locale,
    // the connection may start before the page's words are in: what it hears waits for them
    listeners: {
      onSnapshot: afterWords((welcome, how) => joined(token, welcome, how)),
      onTable: afterWords(drawTable),
      onEvent: afterWords(liveEvent),
      onCursor: afterWords((cursor) => {
        document.body.dataset.seq = String(cursor.seq);
      }),
      onStatus: afterWords((status, detail) => {
        showStatus(status, detail);
        // a hello refused for now (too many wrong tokens from this address): why it waits
        if (status === "waiting" && detail?.refusal?.code === "rate_limited" && detail.refusal.message) {
          say(detail.refusal.message, "error");
          refusedForNow = true;
        } else if (status === "connected" && refusedForNow) {
          say("");
          refusedForNow = false;
        }
        if (status === "refused") refused(token, detail);
      }),
    },
  });
  session.start();
}

/**
 * The server refused the token `token`: it is forgotten (a revoked token is not tried
 * again at each reload) and the join form shown. A token that had joined before (in
 * this page, or in this tab before a reload) no longer works — the GM revoked it, or
 * removed the table: the page says so and what to do, clears the log and keeps
 * nothing more of that identity (what it kept when last hidden is removed too, and
 * its pagehide keeps nothing); the server's reason stays on the line as data-code.
 * A token that never joined is refused in the server's words.
 */
function refused(token, detail) {
  const revoked = token === acceptedToken || token === tabToken;
  forgetToken(tableId);
  joinToken = null;
  acceptedToken = null;
  if (revoked) {
    joinedAs = null;
    takeLines(tableId);
    takeForms(tableId);
    clearLog();
    say(i18n.localize("ROLLBRIDGE.Web.Message.Revoked"), "error");
    $("message").dataset.code = detail?.code ?? "";
  } else say(detail?.message || i18n.localize("ROLLBRIDGE.Connection.refused"), "error");
  const hadFocus = $("table").contains(document.activeElement);
  $("join").hidden = false;
  $("table").hidden = true;
  $("leave").hidden = true;
  if (hadFocus) $("token").focus(); // the table it was in is gone
}

$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("token");
  const token = input.value.trim();
  input.value = "";
  if (!token) return;
  if (session) session.stop();
  join(token);
});

$("reconnect").addEventListener("click", nudge);

/**
 * Leave the table on this device (*Leave*): the connection closed, the tab's token
 * forgotten and the table's log cleared, the join form shown. Closing the tab is not
 * enough on a shared phone or computer: a browser brings a closed tab back with its
 * sessionStorage (reopening a closed tab, restoring the last session).
 */
function leave() {
  forgetToken(tableId);
  // and what the page kept of the lines and the forms when it was last hidden (taken
  // is removed): the next person's page has nothing of them
  takeLines(tableId);
  takeForms(tableId);
  joinedAs = null;
  joinToken = null;
  acceptedToken = null;
  session?.stop(); // stopped: nothing reconnects it (the join form starts another)
  clearLog();
  $("leave").hidden = true;
  $("table").hidden = true;
  $("join").hidden = false;
  showStatus();
  say(i18n.localize("ROLLBRIDGE.Web.Message.Left"));
  $("token").focus();
}

$("leave").addEventListener("click", leave);

/** Offer the page's languages, each named in itself, the page's own chosen; another
 * chosen is kept for every page of this server and the page loads anew in it: its
 * words, and the server's texts (the hello asks for them), the log's too. The tab's
 * token joins again (as at any reload), so the viewer stays at the table. */
function offerLanguages() {
  const chooser = $("language");
  chooser.replaceChildren(...LANGUAGES.map((lang) => {
    const option = new Option(LANGUAGE_NAMES[lang], lang);
    option.lang = lang;
    return option;
  }));
  chooser.value = pageLanguage(locale);
  // how the list was last used: a mouse, or a key, a finger or a screen reader (one
  // that sets the value itself presses nothing; a phone's touches its element)
  chooser.addEventListener("pointerdown", (event) => { mouseChose = event.pointerType === "mouse"; });
  chooser.addEventListener("keydown", () => { mouseChose = false; });
  chooser.addEventListener("change", () => {
    languageLater = chooser.value;
    // a request still waiting (queued while the line is down, or sent and not
    // answered yet) would be lost by the reload: the page changes once it is answered
    if (unanswered) say(i18n.localize("ROLLBRIDGE.Web.Message.LanguageAfter"));
    else changeLanguageNow();
  });
}

/** Whether the language list was last used with a mouse: its focus is then not
 * given back after the language's reload. */
let mouseChose = false;

/** The language the viewer chose, until the page loads anew in it (it waits for the
 * answers to this page's requests), or null. */
let languageLater = null;

/** Keep the language chosen (`languageLater`) and load the page anew in it. A
 * browser that will not keep it (storage denied) changes nothing: the list shows the
 * page's language again — it showed the one chosen, the page in another — and the
 * page says why. */
function changeLanguageNow() {
  const lang = languageLater;
  if (!lang) return;
  languageLater = null;
  if (!chooseLanguage(lang)) {
    $("language").value = pageLanguage(locale);
    say(i18n.localize("ROLLBRIDGE.Web.Message.LanguageNotKept"), "error");
    return;
  }
  // a page still joining (a slow line) has a token the server has not accepted yet:
  // it is kept for this one reload only, or the reload would ask for it (the
  // #token= link is gone from the address); the reloaded page keeps it once the
  // server accepts it, as any join, and nothing of it once it is refused
  if (joinToken && joinToken !== acceptedToken) keepTokenOnce(tableId, joinToken);
  // what the lines say, to be said again in the language chosen
  keepTheLines(true);
  languageReload = true; // what it kept stands: its pagehide keeps nothing over it
  location.reload();
}

offerLanguages();
followTopBar();
/** Say again who the viewer is whole, for the keyboard, after the bar's text changes. */
const showWhoWhole = followCutName();
// back online, or the page shown again (a phone's tab): try now, not at the backoff's next step
window.addEventListener("online", nudge);
window.addEventListener("offline", nudge);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") nudge();
});
window.addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  if (tableId) dropWhatWasKept(); // back from the back-forward cache, alive
  holdPage();
  nudge();
});
// A phone discards a tab it keeps in the background (the page is gone, with no event
// on the way out) and loads it anew when the player comes back to it: what was typed
// in the forms, what the lines beside them said and the requests waiting for the GM
// were lost. They are kept as for a language's reload (kept.mjs) whenever the page
// may go so — hidden, frozen, or left (a reload) — and the next load takes them.
const keepWhatWasTyped = () => {
  if (joinedAs && !languageReload) keepTheLines();
};
/** What is typed, and the lines a reply changes, are kept as well while the page is
 * shown, at most KEEP_MS after the first change since they were last kept
 * (keepSoon): a tab killed while shown — its renderer crashed, or ended for the
 * memory another app wanted — hears nothing on its way out, as a discarded one, and
 * lost what was typed since it was last hidden. A copy of the tab made meanwhile
 * finds this page alive and takes none of it (keeper.mjs); a browser that cannot tell
 * a copy (no Web Locks: a page served over plain HTTP at a LAN address) keeps them
 * only as before, when the page may go. */
const KEEP_MS = 300;
let keepTimer = null;
keepSoon = () => {
  if (keepTimer !== null || !joinedAs || languageReload || !tellsCopies()) return;
  keepTimer = setTimeout(() => {
    keepTimer = null;
    keepWhatWasTyped();
  }, KEEP_MS);
};
document.addEventListener("input", keepSoon);
document.addEventListener("change", keepSoon);
/** The page is shown again, alive: what it kept when it was hidden is for a load that
 * did not come, and is removed. Left in the tab, it went with a copy of the tab's
 * storage — a duplicated tab (the browser's *Duplicate*), a link opened from the page
 * — into a page that is not this one's next load: that page showed this one's draft
 * and lines as they were when this one was last hidden, and followed its requests. */
const dropWhatWasKept = () => {
  if (languageReload) return;
  takeLines(tableId);
  takeForms(tableId);
};
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") keepWhatWasTyped();
  else if (tableId) dropWhatWasKept();
});
document.addEventListener("freeze", keepWhatWasTyped);
window.addEventListener("pagehide", keepWhatWasTyped);
// this page's lock goes with it (keeper.mjs): the reload's next page takes what it kept
window.addEventListener("pagehide", letPageGo);

// joining with the fragment's token (or the one this tab joined with before a
// reload) starts at once, while the page's words load (in the language its hello
// asks the server's texts in); the join form waits for them
// (a token kept for one reload only is taken, and so removed, whatever joins; it
// goes before the one the tab joined with: it is the join that was under way, a new
// link opened in a tab that had joined with another token)
const onceToken = tableId ? takeTokenOnce(tableId) : null;
const tabToken = tableId ? rememberedToken(tableId) : null;
const linkToken = takeToken();
const startToken = linkToken ?? onceToken ?? tabToken;
// what the tab kept is its joined token's viewer's: a link with another token opened
// in the tab (the next person on a shared tablet) takes none of it, whoever it joins
// as (an identity is a role and a name, and a token made without a name is named
// after its role: two players' tokens can both be "player")
const foreign = Boolean(linkToken) && linkToken !== tabToken;
// the lines the page said before a language's reload (or before the phone discarded
// it), and the requests of it still waiting for the GM: said again, in this
// language, as the table comes in (taken, so removed, in any case)
const keptLines = tableId ? takeLines(tableId) : null;
// and what was typed in the forms (for the identity it was typed as)
let keptForms = tableId ? takeForms(tableId) : null;
// kept by a page still alive, or taken by another page loaded since that page went
// (a tab duplicated once the phone had discarded it, and the tab loaded anew): this
// page is a copy of its tab, and none of it is this page's (keeper.mjs)
const copied = !(await takeOver(keptLines?.keeper ?? keptForms?.keeper ?? null));
holdPage();
if (foreign || copied) keptForms = null;
if (startToken) join(startToken);
if (startToken && keptLines && !foreign && !copied) {
  restoring = { message: keptLines.message, forms: keptLines.forms };
  linedForms = new Set(Object.keys(keptLines.forms));
  for (const [pending, form, request] of keptLines.asked) asked.set(pending, { form, request });
  for (const [pending, request, seq] of keptLines.answered) {
    answeredMine.set(pending, request);
    if (Number.isInteger(seq)) mineSecret.set(pending, seq);
  }
  askedOf = { identity: keptLines.identity, epoch: keptLines.epoch };
}
await useLanguage(pageLanguage(locale));
localizePage(document);
worded = true;
if (keptLines?.focus === "language") $("language").focus();
for (const call of heldCalls.splice(0)) call();
showStatus();
if (!startToken) $("join").hidden = false;
