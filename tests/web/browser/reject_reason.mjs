// The GM's reason for a rejection, in headless Chromium against a real rollbridge
// server (started by tests/web/test_web_reject_reason.py): the GM's page rejects at
// once with *Reject*, or with a reason written in the one-line field *Reject with a
// reason…* opens (by keyboard, the field kept while another request comes in); a
// player's Czech phone says the reason beside the form, on the message line and in
// the log line, and again after a language's reload; hostile reasons sent as the
// Foundry module would send them stay text and break no layout. RB_CASE names the
// case; prints one line `RESULT {json}` of what the pages showed; the Python test
// judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE, RB_REASONS (JSON: the hostile reasons),
// RB_RESTORED (http://127.0.0.1:PORT of a second server on a restored backup of the
// first's database, for the case `restored`).

import { createRequire } from "node:module";
import process from "node:process";

import {
  DESKTOP, SMALL_PHONE, connected, gmRequest, joinedPage, openPage, runCase, seqOf, submitForm, waitSeq, widthOf,
} from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const REASONS = JSON.parse(env.RB_REASONS ?? "[]");
const RESTORED = env.RB_RESTORED;
// Node's own WebSocket client from Node 22 on; before, `ws` (in tests/foundry's
// locked modules, which playwright-core comes from too)
const WebSocketClient = globalThis.WebSocket
  ?? createRequire(new URL("../../foundry/package.json", import.meta.url))("ws");
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`reject_reason: ${name}\n`);
}

/** What a player's page says of its roll: the roll form's line, the message line,
 * the log's latest rejection, the page's language. */
const linesOf = (page) => page.evaluate(() => ({
  lang: document.documentElement.lang,
  roll: document.querySelector("form.roll-form .form-status")?.textContent ?? null,
  message: document.getElementById("message").textContent,
  log: document.querySelector("#log li.kind-approval-rejected .summary")?.textContent ?? null,
}));

/** How a page holds up: wider than its screen (the page, or an element that scrolls
 * sideways), a panel something is drawn out of, elements a parsed reason made. */
const layoutOf = async (page) => ({ ...(await widthOf(page)), ...(await page.evaluate(() => ({
  // a line drawn past the screen's right edge
  past: [...document.querySelectorAll("#message, .form-status, #log .summary")]
    .filter((node) => node.getBoundingClientRect().right > window.innerWidth + 1)
    .map((node) => node.className || node.id),
  parsed: document.querySelectorAll("body img, body script, body iframe, body b").length,
}))) });

/** The player's roll through its form, waiting for the GM: its pending id. */
async function asks(player, label) {
  const form = player.locator("form.roll-form");
  await submitForm(form, { formula: "2d6", label });
  const line = await form.locator(".form-status").textContent();
  return line.match(/\((p\d+)\)/)?.[1] ?? null;
}

/** Wait until `player` has the rejection of `pending` in (its seq past `before`), and
 * the roll form's line no longer says that it waits. */
async function rejectedIn(player, before, pending) {
  await waitSeq(player, before + 1);
  await player.locator("#log li.kind-approval-rejected").first().waitFor();
  await player.waitForFunction((p) => !document.querySelector("form.roll-form .form-status")?.textContent
    .includes(`(${p})`), pending);
}

/**
 * Route `page`'s WebSocket to its own server until `line.moveTo(base)`, then to the
 * server at `base` (its connections closed at once: the phone's line broke while
 * the table was restored, and its next connection reaches the restored server);
 * `line.sent` records what the page sent the second server.
 */
async function movableLine(page) {
  const line = { target: null, routes: [], sent: [], upstreams: [] };
  await page.routeWebSocket(/\/tables\//, (route) => {
    line.routes.push(route);
    if (!line.target) {
      route.connectToServer(); // passed through as it is
      return;
    }
    const upstream = new WebSocketClient(line.target + new URL(route.url()).pathname);
    line.upstreams.push(upstream);
    const waiting = [];
    upstream.onopen = () => waiting.splice(0).forEach((frame) => upstream.send(frame));
    upstream.onmessage = (message) => route.send(String(message.data));
    upstream.onclose = () => route.close();
    route.onClose(() => upstream.close());
    route.onMessage((frame) => {
      line.sent.push(String(frame));
      if (upstream.readyState === 1) upstream.send(frame);
      else waiting.push(frame);
    });
  });
  line.moveTo = (base) => {
    line.target = base.replace(/^http/, "ws");
    for (const route of line.routes.splice(0)) route.close({ code: 4001, reason: "test: the line is cut" });
  };
  line.close = () => line.upstreams.forEach((upstream) => upstream.close()); // Node's loop ends
  return line;
}

/** A page of `name` on a phone in `locale`, joined to the approval table with
 * `token` over a line movableLine moves (`line`); to `table` when given. */
async function joinedOnMovableLine(browser, name, locale, token, table = "approval") {
  const page = await openPage(browser, name, { ...SMALL_PHONE, locale }, trouble);
  const line = await movableLine(page);
  await page.goto(`${BASE}/tables/${table}#token=${token}`);
  await connected(page);
  return { page, line };
}

/** On the restored table (RB_RESTORED), the player's roll `id` waiting for the GM,
 * labelled "after the restore": the page that sent it, and the server's reply. */
async function rollOnRestored(browser, id) {
  step("the table restored from a backup; another roll waits there under the same id");
  const helper = await openPage(browser, "helper", DESKTOP, trouble);
  await helper.goto(`${RESTORED}/tables/approval`);
  const other = await gmRequest(helper, "approval", TOKENS.approval.player,
    { type: "roll", id, formula: "1d6", label: "after the restore" });
  return { helper, other };
}

/** The table restored under `player`'s page, loaded throughout (its line moved to the
 * restored server, RB_RESTORED, and back): a page of that server's `table` to send
 * requests from, once the player's page is connected there with the line that says
 * it came back; and the seq the player's page is at then. */
async function throughRestore(browser, player, line, table) {
  const helper = await openPage(browser, "helper", DESKTOP, trouble);
  await helper.goto(`${RESTORED}/tables/${table}`);
  line.moveTo(RESTORED);
  await player.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  await player.waitForFunction(() => document.body.dataset.status === "connected"
    && document.querySelector("#log .entry-gap"));
  return { helper, seq: await seqOf(player) };
}

/** On the restored `table` (its page `helper`), the GM changes the actor `actor` (an
 * undoable event: a roll is none) and undoes that change by its seq; in `result`: the
 * change's seq (gmRolled), the undo's and its reply, and what `player`'s lines say
 * once the page has seen the undo. */
async function changedAndUndone(helper, player, table, actor, result) {
  const changed = await gmRequest(helper, table, TOKENS[table].gm,
    { type: "adjust", id: "restored-adjust", actor, track: "physical", delta: 1 });
  result.gmRolled = changed.seq ?? changed.event?.seq ?? null;
  result.undoReply = await gmRequest(helper, table, TOKENS[table].gm,
    { type: "undo", id: "restored-undo", seq: result.gmRolled });
  result.undo = result.undoReply.seq ?? result.undoReply.event?.seq ?? null;
  await waitSeq(player, result.undo);
  await player.locator(`#log li[data-seq="${result.undo}"]`).waitFor();
  result.after = await linesOf(player);
}

const cases = {
  /** A Czech player's rolls rejected by an English GM: at once, then with a reason
   * written by keyboard while another request comes in, then Russian chosen. */
  async reason(browser, result) {
    const url = `${BASE}/tables/approval`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.approval.gm);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    step("Reject: at once, no reason");
    const plain = await asks(player, "plain");
    let before = await seqOf(player);
    await gm.locator("#pending li.pending-item").first().waitFor();
    await gm.click('#pending button[name="reject"]');
    await rejectedIn(player, before, plain);
    result.plain = await linesOf(player);
    step("Reject with a reason…: opened by keyboard, the field kept while another request comes in");
    const pending = await asks(player, "why");
    await gm.locator(`#pending li[data-pending="${pending}"]`).waitFor();
    await gm.focus(`#pending li[data-pending="${pending}"] button[name="reason-open"]`);
    await gm.keyboard.press("Enter");
    result.opened = await gm.evaluate(() => ({
      focus: document.activeElement?.name ?? null,
      expanded: document.querySelector('#pending button[name="reason-open"]').getAttribute("aria-expanded"),
      label: document.activeElement?.labels?.[0]?.textContent ?? null,
    }));
    await gm.keyboard.type("Not tonight, ");
    const other = await gmRequest(gm, "approval", TOKENS.approval.player,
      { type: "roll", id: "reason-other", formula: "1d6", label: "another" });
    await gm.locator(`#pending li[data-pending="${other.pending}"]`).waitFor();
    result.whileAnother = await gm.evaluate(() => ({
      focus: document.activeElement?.name ?? null, value: document.activeElement?.value ?? null,
      caret: document.activeElement?.selectionStart ?? null,
    }));
    await gm.keyboard.type("<b>Tukan</b>");
    before = await seqOf(player);
    await gm.keyboard.press("Enter");
    await rejectedIn(player, before, pending);
    result.reasoned = await linesOf(player);
    result.gmLog = await gm.locator("#log li.kind-approval-rejected .summary").first().textContent();
    result.left = await gm.$$eval("#pending li.pending-item", (items) => items.map((item) => item.dataset.pending));
    step("Russian chosen: the reason said again, the words around it in Russian");
    await Promise.all([player.waitForEvent("load"), player.selectOption("#language", "ru")]);
    await player.waitForFunction(() => document.documentElement.lang === "ru"
      && document.body.dataset.status === "connected" && document.body.dataset.history !== undefined
      && document.querySelector("form.roll-form .form-status")?.textContent).catch(() => {});
    result.russian = await linesOf(player);
    await gmRequest(gm, "approval", TOKENS.approval.gm,
      { type: "reject", id: "reason-other-no", request: other.pending });
  },

  /** The GM on a phone writes a reason for a player's roll; the table is restored
   * from a backup taken before it (a new epoch, whose pending ids are counted again
   * from the backup's seq) while the GM's line is down, and another roll waits there
   * with the same pending id. The GM's page, back on the restored table, shows the
   * other roll: its reason field is closed and empty, and its *Reject* sends no
   * reason. The reason, kept by the pending id alone, came back open beside the
   * other roll, and *Reject* sent it with that one. */
  async restored(browser, result) {
    const url = `${BASE}/tables/approval`;
    const { page: gm, line } = await joinedOnMovableLine(browser, "gm", "en-US", TOKENS.approval.gm);
    try {
      const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
        TOKENS.approval.player);
      result.before = await asks(player, "before the restore");
      const item = gm.locator(`#pending li[data-pending="${result.before}"]`);
      await item.locator('button[name="reason-open"]').tap();
      await item.locator('input[name="reason"]').fill("Not tonight");
      const { other } = await rollOnRestored(browser, "restored-other");
      result.after = other.pending;
      line.moveTo(RESTORED);
      await gm.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
      const shown = gm.locator("#pending li.pending-item", { hasText: "after the restore" });
      await shown.waitFor();
      await connected(gm);
      result.field = await shown.evaluate((li) => ({
        pending: li.dataset.pending,
        expanded: li.querySelector('button[name="reason-open"]').getAttribute("aria-expanded"),
        hidden: li.querySelector("form.reason-form").hidden,
        value: li.querySelector('input[name="reason"]').value,
      }));
      await shown.locator('button[name="reject"]').tap();
      await gm.locator("#pending li.pending-item", { hasText: "after the restore" }).waitFor({ state: "detached" });
      result.rejects = line.sent.map((frame) => JSON.parse(frame)).filter((frame) => frame.type === "reject");
    } finally {
      line.close();
    }
  },

  /** A Czech player's roll waits for the GM; the phone's tab is loaded anew (a
   * discarded tab: what the page kept when it was hidden comes back) while the table
   * is restored from a backup taken before that roll (a new epoch, whose pending ids
   * are counted again), and there another roll waits under the same pending id,
   * which the GM approves. The player's page followed it as its own: its roll form
   * said the GM approved it, with the other roll's result. With `{reload: false}`,
   * the same page stays loaded through the restore (its line down meanwhile). */
  async askedRestored(browser, result, { reload = true } = {}) {
    const { page: player, line } = await joinedOnMovableLine(browser, "player", "cs-CZ", TOKENS.approval.player);
    try {
      result.before = await asks(player, "before the restore");
      result.waiting = await linesOf(player);
      const { helper, other } = await rollOnRestored(browser, "asked-restored-other");
      result.after = other.pending;
      if (reload) {
        await player.evaluate(() => {
          Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
          document.dispatchEvent(new Event("visibilitychange"));
        });
        line.moveTo(RESTORED);
        await player.reload();
      } else {
        line.moveTo(RESTORED);
        await player.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
      }
      await player.waitForFunction(() => document.body.dataset.status === "connected"
        && document.body.dataset.history !== undefined && Number(document.body.dataset.seq) > 0);
      const seq = await seqOf(player);
      step("the GM approves the other roll on the restored table");
      await gmRequest(helper, "approval", TOKENS.approval.gm,
        { type: "approve", id: "asked-restored-approve", request: other.pending });
      await waitSeq(player, seq + 1);
      result.logged = await player.locator("#log li", { hasText: "after the restore" }).count();
      // the page asks the restored server what became of its roll: the line says the
      // answer once it is in (a bound only for a page that never says one)
      await player.waitForFunction((p) => {
        const line = document.querySelector("form.roll-form .form-status")?.textContent ?? "";
        return line && !line.includes(`(${p})`);
      }, result.before).catch(() => {});
      result.lines = await linesOf(player);
    } finally {
      line.close();
    }
  },

  /** A Czech player's roll waits for the GM; the table is restored from a backup
   * taken before it while the player's page stays loaded (its line down meanwhile),
   * and on the restored table the GM rolls in the open: the restored table counts
   * seqs again from the backup's, so the GM's roll has the seq the player's roll had.
   * What the player's log shows then. */
  async restoredLog(browser, result) {
    const { page: player, line } = await joinedOnMovableLine(browser, "player", "cs-CZ", TOKENS.approval.player);
    try {
      result.before = await asks(player, "before the restore");
      await player.waitForFunction((p) => document.querySelector(`#log li[data-seq="${p.slice(1)}"]`),
        result.before);
      step("the table restored, the page loaded throughout; the GM rolls there");
      const { helper, seq } = await throughRestore(browser, player, line, "approval");
      const rolled = await gmRequest(helper, "approval", TOKENS.approval.gm,
        { type: "roll", id: "restored-log-roll", formula: "1d6", label: "after the restore" });
      result.rolled = rolled.seq ?? rolled.event?.seq ?? null;
      await waitSeq(player, seq + 1);
      // the roll's entry once it is in (a bound only for a page that left it out)
      await player.locator("#log li", { hasText: "after the restore" }).waitFor({ timeout: 5_000 }).catch(() => {});
      result.after = await player.locator("#log li", { hasText: "after the restore" }).count();
      result.gone = await player.locator("#log li", { hasText: "before the restore" }).count();
      result.gaps = await player.locator("#log .entry-gap").count();
    } finally {
      line.close();
    }
  },

  /** A Czech player's roll said beside its form (the line names its seq); the table
   * restored from a backup taken before it, the page loaded throughout; there the GM
   * changes an actor at the seq the player's roll had (an undoable event: a roll is
   * none), and undoes that change. */
  async restoredUndo(browser, result) {
    const { page: player, line } = await joinedOnMovableLine(browser, "player", "cs-CZ", TOKENS.web.player, "web");
    try {
      await submitForm(player.locator("form.roll-form"), { formula: "2d6", label: "before the restore" });
      const entry = player.locator("#log li.kind-roll", { hasText: "before the restore" }).first();
      result.rolled = Number(await entry.getAttribute("data-seq"));
      result.before = await linesOf(player);
      step("the table restored, the page loaded throughout; the GM changes an actor there and undoes it");
      const { helper } = await throughRestore(browser, player, line, "web");
      await changedAndUndone(helper, player, "web", "rook", result);
    } finally {
      line.close();
    }
  },

  /** The same with the GM's approval said on the message line (it names the roll's
   * seq): the player's roll approved before the restore, the GM rolling on the
   * restored table up to the seq before it, changing an actor at it and undoing that. */
  async restoredUndoApproved(browser, result) {
    const { page: player, line } = await joinedOnMovableLine(browser, "player", "cs-CZ", TOKENS.approval.player);
    try {
      const pending = await asks(player, "approved before the restore");
      const seq = await seqOf(player);
      await gmRequest(player, "approval", TOKENS.approval.gm, { type: "approve", id: "approve-it", request: pending });
      await waitSeq(player, seq + 1);
      await player.waitForFunction((p) => !document.getElementById("message").textContent.includes(`(${p})`),
        pending);
      result.rolled = await seqOf(player);
      result.before = await linesOf(player);
      step("the table restored, the page loaded throughout; the GM rolls there up to that seq, changes an actor at it and undoes that");
      const { helper, seq: restoredAt } = await throughRestore(browser, player, line, "approval");
      let rolled = restoredAt;
      for (let n = 0; rolled < result.rolled - 1 && n < 10; n++) {
        const reply = await gmRequest(helper, "approval", TOKENS.approval.gm,
          { type: "roll", id: `restored-roll-${n}`, formula: "1d6", label: `the GM's ${n}` });
        rolled = reply.seq ?? reply.event?.seq ?? 0;
      }
      await changedAndUndone(helper, player, "approval", "guard-a", result);
    } finally {
      line.close();
    }
  },

  /** The same, the page loaded through the restore. */
  askedRestoredLive(browser, result) {
    return cases.askedRestored(browser, result, { reload: false });
  },

  /** The GM writes a reason in the open field, then presses *Reject* beside
   * *Approve* rather than the field's own button. */
  async rejectButton(browser, result) {
    const url = `${BASE}/tables/approval`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.approval.gm);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    const pending = await asks(player, "written, then Reject");
    const item = gm.locator(`#pending li[data-pending="${pending}"]`);
    await item.locator('button[name="reason-open"]').click();
    await item.locator('input[name="reason"]').fill("Not in the dark");
    const before = await seqOf(player);
    await item.locator('button[name="reject"]').click();
    await rejectedIn(player, before, pending);
    result.rejected = await linesOf(player);
  },

  /** The GM half-way through a reason chooses another language: the page reloads
   * with the field still open and what was written in it, and its Enter sends it. */
  async gmLanguage(browser, result) {
    const url = `${BASE}/tables/approval`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.approval.gm);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    const pending = await asks(player, "half a reason");
    const opened = await asks(player, "an empty field");
    const item = (id) => gm.locator(`#pending li[data-pending="${id}"]`);
    await item(pending).locator('button[name="reason-open"]').click();
    await item(pending).locator('input[name="reason"]').fill("Not before the ");
    await item(opened).locator('button[name="reason-open"]').click();
    step("German chosen with two reason fields open");
    await Promise.all([gm.waitForEvent("load"), gm.selectOption("#language", "de")]);
    await gm.waitForFunction(() => document.documentElement.lang === "de"
      && document.body.dataset.status === "connected"
      && document.querySelectorAll("#pending li.pending-item").length >= 2);
    result.fields = await gm.$$eval("#pending li.pending-item", (items) => items.map((li) => ({
      pending: li.dataset.pending,
      expanded: li.querySelector('button[name="reason-open"]').getAttribute("aria-expanded"),
      hidden: li.querySelector("form.reason-form").hidden,
      value: li.querySelector('input[name="reason"]').value,
    })));
    await item(pending).locator('input[name="reason"]').press("End");
    await item(pending).locator('input[name="reason"]').type("dawn");
    const before = await seqOf(player);
    await item(pending).locator('input[name="reason"]').press("Enter");
    await rejectedIn(player, before, pending);
    result.rejected = await linesOf(player);
    await gmRequest(gm, "approval", TOKENS.approval.gm, { type: "reject", id: "gm-language-no", request: opened });
    result.pending = pending;
    result.opened = opened;
  },

  /** Hostile reasons, sent as the Foundry module's GM would (over the protocol), on
   * a player's 360×740 phone; and the GM's page on that phone with the field open. */
  async hostile(browser, result) {
    const url = `${BASE}/tables/approval`;
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.approval.player);
    step("a reason of 2,000 letters: refused, the request still waiting");
    const long = await asks(player, "too long a reason");
    const refused = await gmRequest(player, "approval", TOKENS.approval.gm,
      { type: "reject", id: "hostile-too-long", request: long, reason: "W".repeat(2000) });
    const state = await gmRequest(player, "approval", TOKENS.approval.gm, { type: "state", id: "hostile-state" });
    result.tooLong = { code: refused.code ?? refused.status,
      waiting: (state.table?.pending ?? []).map((entry) => entry.pending).includes(long) };
    await gmRequest(player, "approval", TOKENS.approval.gm,
      { type: "reject", id: "hostile-too-long-2", request: long });
    result.reasons = [];
    for (const [index, reason] of REASONS.entries()) {
      step(`hostile reason ${index}`);
      const pending = await asks(player, `hostile ${index}`);
      const before = await seqOf(player);
      const reply = await gmRequest(player, "approval", TOKENS.approval.gm,
        { type: "reject", id: `hostile-reject-${index}`, request: pending, reason });
      await rejectedIn(player, before, pending);
      result.reasons.push({ reply: reply.status ?? reply.code, ...(await linesOf(player)),
        layout: await layoutOf(player) });
    }
    step("the GM's page on a phone, the reason's field open with the longest reason in it");
    const waiting = await gmRequest(player, "approval", TOKENS.approval.player,
      { type: "roll", id: "hostile-last", formula: "1d6", label: "on the GM's phone" });
    const gm = await joinedPage(browser, "gm-phone", { ...SMALL_PHONE, locale: "de-DE" }, trouble, url,
      TOKENS.approval.gm);
    const item = gm.locator(`#pending li[data-pending="${waiting.pending}"]`);
    await item.waitFor();
    await item.locator('button[name="reason-open"]').tap();
    await item.locator('input[name="reason"]').fill(REASONS.reduce((a, b) => (b.length > a.length ? b : a)));
    result.gmPhone = {
      layout: await layoutOf(gm),
      // the controls shown (the closed dice field's are not drawn)
      heights: await item.evaluate((node) => [...node.querySelectorAll("button, input")]
        .filter((control) => control.checkVisibility()).map((control) => Math.round(control.getBoundingClientRect().height))),
      maxLength: await item.locator('input[name="reason"]').evaluate((input) => input.maxLength),
    };
  },

  /** The GM on a phone writes a reason, a word still being composed (the DevTools
   * protocol's Input.imeSetComposition, as an Android keyboard composes every word),
   * when another player's request comes in: the field is left as it is until the
   * word is in, which goes in once; then the list is drawn anew, the reason and the
   * focus kept. */
  async compose(browser, result) {
    const url = `${BASE}/tables/approval`;
    const gm = await joinedPage(browser, "gm", { ...SMALL_PHONE, locale: "en-US" }, trouble, url,
      TOKENS.approval.gm);
    const cdp = await gm.context().newCDPSession(gm);
    const first = await gmRequest(gm, "approval", TOKENS.approval.player,
      { type: "roll", id: "compose-first", formula: "2d6", label: "first" });
    const item = gm.locator(`#pending li[data-pending="${first.pending}"]`);
    await item.locator('button[name="reason-open"]').tap();
    const field = item.locator('input[name="reason"]');
    await field.fill("Not");
    await field.evaluate((node) => { window.rbTyping = node; node.setSelectionRange(3, 3); });
    await cdp.send("Input.imeSetComposition", { text: " toni", selectionStart: 5, selectionEnd: 5 });
    step("another request comes in while a word is composed");
    const second = await gmRequest(gm, "approval", TOKENS.approval.player,
      { type: "roll", id: "compose-second", formula: "1d6", label: "second" });
    // the GM's page has the new request (its table view), the list not drawn anew yet
    await gm.waitForFunction((p) => document.body.dataset.seq && window.rbTyping?.isConnected
      && !document.querySelector(`#pending li[data-pending="${p}"]`), second.pending).catch(() => {});
    const state = () => gm.evaluate(() => ({ same: document.activeElement === window.rbTyping,
      name: document.activeElement?.name ?? null, value: document.activeElement?.value ?? null,
      items: document.querySelectorAll("#pending li.pending-item").length }));
    result.composing = await state();
    step("the word committed");
    await cdp.send("Input.imeSetComposition", { text: " tonight", selectionStart: 8, selectionEnd: 8 });
    await cdp.send("Input.insertText", { text: " tonight" });
    await gm.locator(`#pending li[data-pending="${second.pending}"]`).waitFor();
    result.after = await state();
  },
};

await runCase(cases, trouble);
