// A player away and back, a revoked link, a duplicated tab and a log too large to
// download whole, in headless Chromium against a real rollbridge server (started by
// tests/web/test_web_away.py). RB_CASE names the case; prints one line
// `RESULT {json}` of what the pages showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE, RB_ADMIN (an admin token of the
// server, for the case `revoked`), RB_SAVE (where the case `tooLarge` saves the file).

import process from "node:process";

import {
  DESKTOP, SMALL_PHONE, connected, crash, gmRequest, tabHolding as heldTab, hide, joinedPage, launch, runCase, seqOf,
  storageOf, submitForm, waitSeq,
} from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };

function step(name) {
  process.stderr.write(`away: ${name}\n`);
}

/** What a page says of its roll: the roll form's line and label, the message line. */
const linesOf = (page) => page.evaluate(() => ({
  roll: document.querySelector("form.roll-form .form-status")?.textContent ?? null,
  label: document.querySelector("form.roll-form input[name=label]")?.value ?? null,
  message: document.getElementById("message").textContent,
  code: document.getElementById("message").dataset.code ?? "",
}));

/** The player's roll through its form, waiting for the GM: its pending id. */
async function asks(player, label) {
  await submitForm(player.locator("form.roll-form"), { formula: "2d6", label });
  const line = await player.locator("form.roll-form .form-status").textContent();
  return line.match(/\((p\d+)\)/)?.[1] ?? null;
}

/** A player's phone in `locale` at the table `approval`: a roll labelled `label`
 * waiting for the GM (its pending id in `result.pending`), another's label typed
 * (`draft`). */
async function askingWithDraft(browser, locale, result, label, draft, base = BASE) {
  const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale }, trouble,
    `${base}/tables/approval`, TOKENS.approval.player);
  result.pending = await asks(player, label);
  await player.locator('form.roll-form input[name="label"]').fill(draft);
  return player;
}

/** A copy of the tab of `page` — a window the page opens on its own address stands in
 * for the browser's *Duplicate* (a new page with a copy of the tab's storage) — once
 * it has joined and its log from before is in, and with it what it took from the
 * tab's storage. */
async function duplicated(page) {
  const [copy] = await Promise.all([page.context().waitForEvent("page"),
    page.evaluate(() => { window.open(location.href); })]);
  await connected(copy);
  await copy.waitForFunction(() => document.body.dataset.history !== undefined);
  return copy;
}

/** The GM approves the roll `result.pending` of `player`: what the page and its
 * `copy` say after it (`result.originalAfter`, `result.copyAfter`). */
async function approvedInBoth(player, copy, result, id) {
  step("the GM approves the original's roll");
  const seq = await seqOf(copy);
  await gmRequest(copy, "approval", TOKENS.approval.gm, { type: "approve", id, request: result.pending });
  await waitSeq(copy, seq + 1);
  await lineLeaves(player, result.pending);
  result.copyAfter = await linesOf(copy);
  result.originalAfter = await linesOf(player);
}

/** The page shown again: the browser's own visibility back (the page is in front).
 * Held at "visible", it stayed so through a later reload's unloading, whose
 * visibilitychange then read "visible" and removed what the pagehide had just kept. */
const show = (page) => page.evaluate(() => {
  delete document.visibilityState;
  document.dispatchEvent(new Event("visibilitychange"));
});

/** What the tab's storage holds for the table `table`, by kind (token, lines, forms). */
const keptIn = (page, table) => page.evaluate((t) => Object.fromEntries(["token", "lines", "forms"]
  .map((kind) => [kind, sessionStorage.getItem(`rollbridge.${kind}.${t}`)])), table);

/** Wait (a bound only for a page that never gets there) until the roll form's line
 * of `page` no longer says that `pending` waits. */
const lineLeaves = (page, pending) => page.waitForFunction((p) => !document.querySelector("form.roll-form .form-status")
  ?.textContent.includes(`(${p})`), pending).then(() => true, () => false);

/** The player's roll waits for the GM, and the phone is away (its line down; with
 * `hidden`, its tab hidden first, so it has kept what it shows) while the GM answers
 * it (`answer`: the request the GM sends) and the table goes on past what the server
 * keeps to resend (its retained log: three events); the player's page, back online. */
async function answeredAway(browser, result, answer, { hidden = false } = {}) {
  const url = `${BASE}/tables/approval`;
  const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
    TOKENS.approval.player, { tap: true });
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, url, TOKENS.approval.gm);
  result.pending = await asks(player, "za rohem");
  result.waiting = await linesOf(player);
  if (hidden) await hide(player);
  step("the phone's line goes down; the GM answers and plays on");
  player.gate.open = false;
  player.gate.drop();
  result.answer = await gmRequest(gm, "approval", TOKENS.approval.gm, answer(result.pending));
  for (let index = 0; index < 5; index += 1) {
    await gmRequest(gm, "approval", TOKENS.approval.gm,
      { type: "roll", id: `gm-on-${index}`, formula: "1d6", label: `meanwhile ${index}` });
  }
  player.gate.open = true;
  return player;
}

/** The requests `player` sent with `repeat` (those its gate still holds). */
const repeatsOf = (player) => player.gate.sent.map((f) => JSON.parse(f)).filter((m) => m.repeat === true);

/** The player's roll waits for the GM, and the phone is away while the GM answers
 * it: back, the page gets the table as it is now, and its roll form's line and
 * message line say. */
async function away(browser, result, answer) {
  const player = await answeredAway(browser, result, answer);
  step("the phone is back");
  await show(player);
  await player.waitForFunction(() => document.body.dataset.status === "connected"
    && document.querySelector("#log .entry-gap"));
  result.welcomes = player.gate.frames.map((f) => JSON.parse(f)).filter((m) => m.type === "welcome")
    .map((m) => m.resume ?? null);
  result.left = await lineLeaves(player, result.pending);
  result.lines = await linesOf(player);
  const repeats = repeatsOf(player);
  result.repeats = repeats.length;
  result.repeated = player.gate.frames.map((f) => JSON.parse(f)).filter((m) => repeats.some((r) => r.id === m.id));
  // and a language's reload says it again, not the wait
  await player.selectOption("#language", "de");
  await player.waitForFunction(() => document.documentElement.lang === "de"
    && document.body.dataset.status === "connected" && document.body.dataset.history !== undefined);
  result.german = await linesOf(player);
}

/** As `away`, the tab hidden first and discarded while away: the player comes back
 * to a tab loaded anew (a reload stands in: it takes what the page kept, as a
 * discarded tab's next load does), whose log from before has lost the approval too. */
async function reloadedAway(browser, result) {
  const player = await answeredAway(browser, result,
    (pending) => ({ type: "approve", id: "reload-approve", request: pending }), { hidden: true });
  step("the player comes back: the tab loads anew");
  player.gate.sent.length = 0;
  await player.reload();
  await player.waitForFunction(() => document.body.dataset.status === "connected"
    && document.body.dataset.history !== undefined);
  result.left = await lineLeaves(player, result.pending);
  result.lines = await linesOf(player);
  result.repeats = repeatsOf(player).length;
}

/** A tab holding `storage` at the table `approval` (pages.mjs's tabHolding). */
const tabHolding = (context, storage, name) => heldTab(context, storage, name, `${BASE}/tables/approval`, trouble);

/** As tabHolding, once the roll form's line says that the roll `pending` waits (the
 * page took what the crashed one kept; a bound only for one that took nothing). */
async function tabTakingOver(context, storage, name, pending) {
  const page = await tabHolding(context, storage, name);
  await page.waitForFunction((p) => document.querySelector("form.roll-form .form-status")
    ?.textContent.includes(`(${p})`), pending).catch(() => {});
  return page;
}

/** A Russian player's roll waits for the GM and another is half typed; the tab is
 * hidden (it keeps what it shows) and its page crashes: what the tab holds then
 * (`storage`), and the player's page. */
async function crashedAsking(browser, result) {
  const player = await askingWithDraft(browser, "ru-RU", result, "первый", "недописанный бросок");
  await hide(player);
  const storage = await storageOf(player);
  result.keptBefore = Boolean(storage["rollbridge.lines.approval"]);
  step("the hidden page crashes");
  await crash(player);
  return { player, storage };
}

/** The page hidden (it keeps what it shows) and loaded anew, once its log from before is in. */
async function reloadedHidden(page) {
  await hide(page);
  await page.reload();
  await connected(page);
  await page.waitForFunction(() => document.body.dataset.history !== undefined);
}

/** What a page's log entry of `seq` says: its kind's words, its text, its classes. */
const entryAt = (page, seq) => page.evaluate((s) => {
  const entry = document.querySelector(`#log li[data-seq="${s}"]`);
  return entry && { kind: entry.querySelector(".kind")?.textContent ?? null, text: entry.textContent,
    classes: entry.className };
}, seq);

/** The admin API's answer to `method path` with the admin token (RB_ADMIN). */
async function admin(method, path) {
  const answer = await fetch(`${BASE}${path}`, { method, headers: { Authorization: `Bearer ${env.RB_ADMIN}` } });
  return { status: answer.status, body: await answer.json() };
}

const cases = {
  /** The GM approves the roll while the phone is away. */
  approvedAway(browser, result) {
    return away(browser, result, (pending) => ({ type: "approve", id: "away-approve", request: pending }));
  },

  /** The GM rejects it, with a reason, while the phone is away. */
  rejectedAway(browser, result) {
    return away(browser, result,
      (pending) => ({ type: "reject", id: "away-reject", request: pending, reason: "Ne dnes" }));
  },

  /** The GM approves the roll while the phone's tab is discarded. */
  reloadedAway,

  /** A Czech player's phone joined with a link, a roll typed; the tab is hidden (it
   * keeps what it shows) and shown again, hidden again; meanwhile the GM revokes the
   * link's token (the admin API: its holder is cut off), and the page, reconnecting,
   * is refused. */
  async revoked(browser, result) {
    const url = `${BASE}/tables/web`;
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.web.player);
    const form = player.locator("form.roll-form");
    await submitForm(form, { formula: "2d6", label: "před zrušením" });
    await form.locator('input[name="label"]').fill("rozepsáno");
    await hide(player);
    result.keptBefore = await keptIn(player, "web");
    step("the GM revokes the player's token");
    const tokens = await admin("GET", "/admin/tables/web/tokens");
    const mine = tokens.body.tokens.filter((token) => token.role === "player");
    result.revoke = (await admin("DELETE", `/admin/tables/web/tokens/${mine[0].id}`)).status;
    // the server cuts its holder off at once: refused, then the player comes back to it
    await player.waitForSelector('body[data-status="refused"]');
    await show(player);
    await player.locator("#join:not([hidden])").waitFor();
    result.refused = await linesOf(player);
    result.log = await player.locator("#log li").count();
    result.keptRefused = await keptIn(player, "web");
    step("hidden again: nothing is kept of that identity");
    await hide(player);
    result.keptAfter = await keptIn(player, "web");
    result.focus = await player.evaluate(() => document.activeElement?.id ?? null);
  },

  /** A Czech player's phone joined with a link, a roll made and another half typed;
   * its line stalls as it reconnects: the page's frames, its hello first, wait
   * (`gate.hold`), and the server, which has not read a hello within its hello
   * timeout (lowered for the test), closes the connection with 1008 — the code it
   * closes a revoked token's connection with, though it has not read the token.
   * Then the line flows again. */
  async helloUnread(browser, result) {
    const url = `${BASE}/tables/web`;
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.web.player, { tap: true });
    const form = player.locator("form.roll-form");
    await submitForm(form, { formula: "2d6", label: "před výpadkem" });
    await form.locator('input[name="label"]').fill("rozepsáno");
    result.logBefore = await player.locator("#log li").count();
    step("the line stalls: the page's hello does not reach the server");
    player.gate.hold = true;
    const tries = player.gate.attempts;
    player.gate.drop();
    // refused (the old page: it took the close for a revoked token), or tried again
    // after the server's close (a third try: the second's close was not a refusal)
    await Promise.race([
      player.waitForSelector('body[data-status="refused"]'),
      player.gate.until(() => player.gate.attempts >= tries + 3),
    ]);
    result.status = await player.evaluate(() => document.body.dataset.status);
    step("the line flows again");
    player.gate.held.length = 0; // the frames held went to connections the server closed
    player.gate.hold = false;
    await player.evaluate(() => window.dispatchEvent(new Event("online")));
    await Promise.race([
      player.waitForSelector('body[data-status="refused"]'),
      player.waitForSelector('body[data-status="connected"]'),
    ]);
    result.after = await player.evaluate(() => document.body.dataset.status);
    result.lines = await linesOf(player);
    result.log = await player.locator("#log li").count();
    result.kept = await keptIn(player, "web");
    result.joinShown = await player.locator("#join").isVisible();
  },

  /** A player's roll waits for the GM and another is half typed; the tab was hidden
   * once (it kept what it showed) and is shown again; then the tab is duplicated — a
   * window the page opens on its own address stands in for the browser's
   * *Duplicate*: a new page with a copy of the tab's storage (HTML's auxiliary
   * browsing context), as a duplicated tab has. */
  async duplicate(browser, result) {
    const player = await askingWithDraft(browser, "cs-CZ", result, "první", "rozepsaný hod");
    await hide(player);
    await show(player);
    await player.locator('form.roll-form input[name="label"]').fill("rozepsaný hod dopsaný");
    step("the tab duplicated");
    const copy = await duplicated(player);
    result.copy = await linesOf(copy);
    result.original = await linesOf(player);
    await approvedInBoth(player, copy, result, "dup-approve");
  },

  /** As `duplicate`, but the tab is duplicated while it is hidden (in the background:
   * what it kept is still in the tab's storage, and goes with the copy), and then
   * shown again. */
  async hiddenDuplicate(browser, result) {
    const player = await askingWithDraft(browser, "ru-RU", result, "первый", "недописанный бросок");
    await hide(player);
    result.keptBefore = Boolean((await keptIn(player, "approval")).lines);
    step("the hidden tab duplicated");
    const copy = await duplicated(player);
    result.copy = await linesOf(copy);
    await show(player);
    result.original = await linesOf(player);
    await approvedInBoth(player, copy, result, "hdup-approve");
  },

  /** As `hiddenDuplicate`'s player, on a page that is not a secure context (plain
   * HTTP at a LAN name, which Chromium maps to 127.0.0.1): no Web Locks there. The
   * hidden tab loaded anew (as a phone's discarded tab) still takes what it kept. */
  async lan(_browser, result) {
    const lan = await launch(env.RB_CHROMIUM, ["--host-resolver-rules=MAP rollbridge.lan 127.0.0.1"]);
    try {
      const player = await askingWithDraft(lan, "ru-RU", result, "первый", "недописанный бросок",
        BASE.replace("127.0.0.1", "rollbridge.lan"));
      result.context = await player.evaluate(() => ({ secure: window.isSecureContext,
        locks: "locks" in navigator }));
      await hide(player);
      step("the hidden tab loaded anew, on a LAN name");
      await player.reload();
      await connected(player);
      await player.waitForFunction((pending) => document.querySelector("form.roll-form .form-status")
        ?.textContent.includes(`(${pending})`), result.pending);
      result.reloaded = await linesOf(player);
    } finally {
      await lan.close();
    }
  },

  /** The GM writes a reason for a player's roll, the tab is hidden and shown again,
   * the reason is sent; then the GM duplicates the tab. */
  async gmDuplicate(browser, result) {
    const url = `${BASE}/tables/approval`;
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "de-DE" }, trouble, url, TOKENS.approval.gm);
    const other = await gmRequest(gm, "approval", TOKENS.approval.player,
      { type: "roll", id: "dup-gm-roll", formula: "1d6", label: "wartet" });
    const item = gm.locator(`#pending li[data-pending="${other.pending}"]`);
    await item.locator('button[name="reason-open"]').click();
    await item.locator('input[name="reason"]').fill("Nicht jetzt");
    await hide(gm);
    await show(gm);
    const [copy] = await Promise.all([gm.context().waitForEvent("page"),
      gm.evaluate(() => { window.open(location.href); })]);
    await connected(copy);
    const copied = copy.locator(`#pending li[data-pending="${other.pending}"]`);
    await copied.waitFor();
    result.copyField = await copied.locator('input[name="reason"]').evaluate((input) => ({
      hidden: input.closest("[hidden]") !== null, value: input.value }));
    result.originalField = await item.locator('input[name="reason"]').inputValue();
  },

  /** A Russian player's roll waits for the GM, an observer watching: the player's
   * log shows it as what they asked, waiting (not the secret placeholder the
   * observer's shows); so does the tab loaded anew; the GM approves it. */
  async mine(browser, result) {
    const url = `${BASE}/tables/approval`;
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble, url,
      TOKENS.approval.player, { tap: true });
    const observer = await joinedPage(browser, "observer", { ...DESKTOP, locale: "ru-RU" }, trouble, url,
      TOKENS.approval.observer);
    result.pending = await asks(player, "за углом");
    const seq = Number(result.pending.slice(1));
    await waitSeq(player, seq);
    await waitSeq(observer, seq);
    await player.waitForFunction((s) => document.querySelector(`#log li[data-seq="${s}"].kind-mine`), seq)
      .catch(() => {});
    result.live = await entryAt(player, seq);
    result.observer = await entryAt(observer, seq);
    result.announced = await player.locator("#announce").textContent();
    // which came first to the player's page: the event or the reply
    const frames = player.gate.frames.map((f) => JSON.parse(f));
    result.eventFirst = frames.findIndex((m) => m.type === "event" && m.seq === seq)
      < frames.findIndex((m) => m.status === "pending");
    step("the tab hidden and loaded anew");
    await reloadedHidden(player);
    result.reloaded = await entryAt(player, seq);
    step("the GM approves it");
    await gmRequest(player, "approval", TOKENS.approval.gm, { type: "approve", id: "mine-approve",
      request: result.pending });
    await waitSeq(player, seq + 1);
    await player.waitForFunction(() => !document.querySelector("#log li.mine-waits")).catch(() => {});
    result.answered = await entryAt(player, seq);
    step("the tab hidden and loaded anew again, the roll answered");
    await reloadedHidden(player);
    result.answeredReloaded = await entryAt(player, seq);
  },

  /** A player's hidden page crashes (`crashedAsking`); a tab holding what its tab
   * held loads: the crashed page's lock is gone with it (the browser let it go), so
   * that tab takes what the page kept — the roll typed and the roll waiting — and
   * follows the GM's answer. */
  async crashed(browser, result) {
    const { player, storage } = await crashedAsking(browser, result);
    step("a tab with its storage loads");
    const next = await tabTakingOver(player.context(), storage, "next", result.pending);
    result.next = await linesOf(next);
    const seq = await seqOf(next);
    await gmRequest(next, "approval", TOKENS.approval.gm, { type: "approve", id: "crash-approve",
      request: result.pending });
    await waitSeq(next, seq + 1);
    await lineLeaves(next, result.pending);
    result.nextAfter = await linesOf(next);
  },

  /** As `crashed` (the phone discarded the tab), and the tab is duplicated: the copy
   * and the tab loaded anew both hold what the page kept. The first to load takes
   * it; the second joins as a copy, and says nothing when the GM approves the roll. */
  async discardedDuplicate(browser, result) {
    const { player, storage } = await crashedAsking(browser, result);
    step("the discarded tab duplicated, the copy loads; then the tab");
    const first = await tabTakingOver(player.context(), storage, "first", result.pending);
    const second = await tabHolding(player.context(), storage, "second");
    result.first = await linesOf(first);
    result.second = await linesOf(second);
    await approvedInBoth(first, second, result, "discard-approve");
  },

  /** A player's Czech phone downloads the log of a long evening, larger than the
   * server sends at once (the test lowers the server's bound): the page says so and
   * offers the latest part, which it then saves (RB_SAVE). */
  async tooLarge(browser, result) {
    const url = `${BASE}/tables/web`;
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "cs-CZ", acceptDownloads: true },
      trouble, url, TOKENS.web.player);
    const line = () => player.$eval("#log-download", (box) => ({
      button: box.querySelector("button").textContent, hint: box.querySelector("output").textContent }));
    result.seq = await seqOf(player);
    await player.click("#log-download button"); // aria-disabled until it is answered
    await player.waitForFunction(() => document.querySelector("#log-download button").getAttribute("aria-disabled") !== "true");
    result.refused = await line();
    const [download] = await Promise.all([player.waitForEvent("download"), player.click("#log-download button")]);
    await download.saveAs(env.RB_SAVE);
    await player.waitForFunction(() => document.querySelector("#log-download button").getAttribute("aria-disabled") !== "true");
    result.saved = await line();
    result.fetched = player.requests.filter((address) => address.includes("/export"));
    // Chromium's console notes each refused fetch: the two 413s are what the case asks for
    const refusals = trouble.errors.filter((error) => error.includes("status of 413"));
    result.refusals = refusals.length;
    trouble.errors = trouble.errors.filter((error) => !refusals.includes(error));
  },
};

await runCase(cases, trouble);
