// What the web view's browser scripts share: Chromium's launch, a page that
// records its errors and dialogs, and questions to a page of the web view.

import { existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import process from "node:process";

// playwright-core is installed once, for every browser test, in tests/foundry
// (npm ci --prefix tests/foundry)
const require = createRequire(new URL("../../foundry/package.json", import.meta.url));
const { chromium } = require("playwright-core");

/** Chromium's flags, as tests/foundry/browser/e2e.mjs launches it. */
export const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

/** A phone's screen (CSS pixels). */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
/** The narrower phone (360×740), drawn as a phone draws it: three device pixels a CSS pixel. */
export const SMALL_PHONE = { ...PHONE, viewport: { width: 360, height: 740 }, deviceScaleFactor: 3 };
/** A laptop's screen. */
export const DESKTOP = { viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 };

/** Chromium started headless with ARGS, and `more` flags after them. */
export function launch(executablePath, more = []) {
  return chromium.launch({ executablePath, headless: true, args: [...ARGS, ...more] });
}

/** Run the case RB_CASE of `cases` (name → async (browser, result)) in Chromium
 * (RB_CHROMIUM) and print one line `RESULT {json}` of what it recorded, with the
 * pages' `trouble` (errors and dialogs); the browser is closed either way. */
/**
 * What a case script (`name`) reads of its environment and shares among its cases:
 * the server's `BASE` (RB_BASE), the `TOKENS` (RB_TOKENS: table → role → token;
 * never printed), the `trouble` its pages report into, and `step`, which tells the
 * test's output what the script does now.
 * @param {string} name the script's name, before each step
 */
export function caseScript(name, env = process.env) {
  return {
    BASE: env.RB_BASE,
    TOKENS: JSON.parse(env.RB_TOKENS),
    trouble: { errors: [], dialogs: [] },
    step: (what) => process.stderr.write(`${name}: ${what}\n`),
  };
}

export async function runCase(cases, trouble, env = process.env) {
  const browser = await launch(env.RB_CHROMIUM);
  const result = { case: env.RB_CASE };
  try {
    await cases[env.RB_CASE](browser, result);
  } finally {
    result.trouble = trouble;
    await browser.close();
  }
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

/** A new page in its own context, recording page errors, console errors (a CSP
 * violation is one), dialogs (dismissed) and every request's URL. */
export async function openPage(browser, name, options, trouble) {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(20_000);
  return watched(await context.newPage(), name, trouble);
}

/** `page` recording page errors, console errors, dialogs (dismissed) and every
 * request's URL, as openPage's pages do (another tab of a context, too). */
export function watched(page, name, trouble) {
  page.requests = [];
  page.on("pageerror", (error) => trouble.errors.push(`${name}: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") trouble.errors.push(`${name}: console: ${message.text()}`);
  });
  page.on("dialog", (dialog) => {
    trouble.dialogs.push(`${name}: ${dialog.type()} ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  page.on("request", (request) => page.requests.push(request.url()));
  return page;
}

/** Waiting for a condition, not a time: `until(condition, bound)` resolves true once
 * `condition()` holds, checked now and at each `changed()` (the caller's events);
 * false after `bound` ms — a bound for what never happens, not a time anything is
 * expected in. */
export function waiter() {
  const waiting = new Set();
  const changed = () => [...waiting].forEach((check) => check());
  const until = (condition, bound = 60_000) => new Promise((resolve) => {
    const check = () => {
      if (!condition()) return;
      waiting.delete(check);
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      waiting.delete(check);
      resolve(false);
    }, bound);
    waiting.add(check);
    check();
  });
  return { until, changed };
}

/** Record every frame the server sends this page, and each the page sends
 * (`gate.sent`), and let a test cut the line: `gate.open = false` refuses new
 * connections, `gate.drop()` closes the open ones; a frame for which
 * `gate.swallow(frame)` is true is not handed to the page (as if the server had
 * skipped it), and is recorded in `gate.swallowed`; while `gate.hold` is true the
 * page's frames wait (a slow line) until `gate.release()`; `gate.attempts` counts
 * the page's tries to connect; `gate.until(condition)` resolves true once
 * `condition()` holds, checked at each frame either way and at each try (false after
 * `bound` ms: a bound for a page that never gets there, not a time anything is
 * expected in). */
export async function tapWebSocket(page) {
  const gate = { open: true, frames: [], sent: [], routes: [], swallow: () => false, swallowed: [], hold: false, held: [],
    attempts: 0 };
  const { until, changed } = waiter();
  gate.until = until;
  gate.release = () => {
    gate.hold = false;
    for (const [server, message] of gate.held.splice(0)) server.send(message);
  };
  gate.drop = () => {
    for (const route of gate.routes.splice(0)) route.close({ code: 4001, reason: "test: the line is cut" });
  };
  await page.routeWebSocket(/\/tables\//, (route) => {
    gate.attempts += 1;
    if (!gate.open) {
      route.close({ code: 1013, reason: "test: the line is down" });
      changed();
      return;
    }
    const server = route.connectToServer();
    route.onMessage((message) => {
      gate.sent.push(String(message));
      if (gate.hold) gate.held.push([server, message]);
      else server.send(message);
      changed();
    });
    server.onMessage((message) => {
      if (gate.swallow(String(message))) {
        gate.swallowed.push(String(message));
        return;
      }
      gate.frames.push(String(message));
      route.send(message);
      changed();
    });
    gate.routes.push(route);
    changed();
  });
  return gate;
}

/**
 * Wait until every frame a tapped page (`page.gate`) sent before now is in
 * `gate.sent`, instead of a sleep: the page is made to ping (a connected page pings
 * at once when it is shown again, `visibilitychange`) and its frames go out in
 * order. With `answered` (not while the gate holds the page's frames), until the
 * server's pong as well — it answers a connection's frames in order, so by then it
 * has answered every one sent before — and until the page has shown every event
 * the tap saw come in. False if the page never pinged or was never answered.
 */
export async function flush(page, { answered = true } = {}) {
  const gate = page.gate;
  const from = gate.sent.length;
  const pingOf = () => gate.sent.slice(from).map((f) => JSON.parse(f)).find((m) => m.type === "ping");
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  if (!(await gate.until(() => pingOf() !== undefined))) return false;
  if (!answered) return true;
  const { id } = pingOf();
  const frames = () => gate.frames.map((f) => JSON.parse(f));
  if (!(await gate.until(() => frames().some((m) => m.type === "pong" && m.id === id)))) return false;
  const seqs = frames().filter((m) => m.type === "event").map((m) => m.seq);
  if (seqs.length) await waitSeq(page, Math.max(...seqs));
  return true;
}

export const connected = (page) => page.waitForSelector('body[data-status="connected"]');

/** A new page that opens `url` with the token in its fragment and waits until it
 * joined; with `tap`, the frames it receives are recorded in `page.gate`. */
export async function joinedPage(browser, name, options, trouble, url, token, { tap = false } = {}) {
  const page = await openPage(browser, name, options, trouble);
  if (tap) page.gate = await tapWebSocket(page);
  await page.goto(`${url}#token=${token}`);
  await connected(page);
  return page;
}

/** How wide a page is drawn: its screen's width, the page's, the elements that
 * scroll sideways (cut text, overflow: clip, cannot be), and the panels something
 * is drawn out of (over the next column). */
export const widthOf = (page) => page.evaluate(() => ({
  screen: window.innerWidth,
  page: document.documentElement.scrollWidth,
  sideways: [...document.querySelectorAll("body *")]
    .filter((node) => node.scrollWidth > node.clientWidth + 1
      && ["auto", "scroll", "hidden"].includes(getComputedStyle(node).overflowX)
      && !node.classList.contains("visually-hidden"))
    .map((node) => `${node.tagName}#${node.id}.${node.className}`),
  spills: [...document.querySelectorAll("section.panel")]
    .filter((panel) => panel.scrollWidth > panel.clientWidth + 1).map((panel) => panel.id || panel.className),
}));

/** The page hidden (the phone locked, another tab chosen), as the browser tells it:
 * the page keeps what it shows for its next load (kept.mjs). */
export const hide = (page) => page.evaluate(() => {
  Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
});

/** The last seq the page has seen. */
export const seqOf = (page) => page.evaluate(() => Number(document.body.dataset.seq ?? 0));

/** Wait until the page has seen event `seq`. */
export const waitSeq = (page, seq) =>
  page.waitForFunction((s) => Number(document.body.dataset.seq ?? 0) >= s, seq);

/** The seqs of the page's log entries, oldest first. */
export const logSeqs = (page) =>
  page.$$eval("#log li[data-seq]", (items) => items.map((li) => Number(li.dataset.seq)).reverse());

/** A track's "value/max" on an actor's card. */
export const trackOf = (page, actor, key) =>
  page.$eval(`#actors [data-actor="${actor}"] [data-track="${key}"] .track-value`, (n) => n.textContent);

/** Fill in an sr2 attack form as Tukan's attack with the Hackler: a three-round
 * burst, skill 5 and two Combat Pool dice (the values that, with the seeded dice,
 * hit Rook). An action's example is a hint only: the form leaves its numbers out. */
export async function fillAttack(form) {
  await form.locator('select[name="weapon"]').selectOption("Hackler");
  await form.locator('input[name="skill"]').fill("5");
  await form.locator('input[name="attacker_pool"]').fill("2");
  await form.locator('input[name="rounds"]').fill("3");
}

/** Tukan hits Rook with the action form of `page` (sr2's table `web`, the player's
 * page): the attack chosen and filled in (fillAttack) and sent; resolves once the
 * line beside the form says its outcome. */
export async function tukanHitsRook(page) {
  await page.selectOption("#action-select", "attack");
  const form = page.locator('form.action-form[data-action="attack"]');
  await form.locator('select[name="actor"]').selectOption("tukan");
  await form.locator('input[name="target"][value="rook"]').check();
  await fillAttack(form);
  await form.locator('button[type="submit"]').click();
  await page.waitForSelector('form.action-form[data-action="attack"] .form-status:not(:empty)');
}

/** Submit the action form; the `resolve` it sent (or null) and the line beside it. */
export async function submitAction(page) {
  const before = page.gate.sent.length;
  const form = page.locator("#action form");
  await form.locator(".form-status").evaluate((line) => { line.textContent = ""; });
  await form.locator('button[type="submit"]').click();
  await page.waitForSelector("#action form .form-status:not(:empty)");
  const sent = page.gate.sent.slice(before).map((f) => JSON.parse(f)).filter((m) => m.type === "resolve");
  return { sent: sent.at(-1) ?? null, status: await form.locator(".form-status").textContent(),
    kind: await form.locator(".form-status").getAttribute("data-kind") };
}

/** Fill `form`'s fields (name → value), submit it, and wait for its outcome line
 * (emptied first, so the line waited for is this submit's). */
export async function submitForm(form, fields) {
  for (const [name, value] of Object.entries(fields)) await form.locator(`input[name="${name}"]`).fill(value);
  await form.locator(".form-status").evaluate((line) => { line.textContent = ""; });
  await form.locator('button[type="submit"]').click();
  await form.locator(".form-status:not(:empty)").waitFor();
}

/** The reply the page got to request `id`, with the event it made (`event`). */
export function replyTo(page, id) {
  const frames = page.gate.frames.map((f) => JSON.parse(f));
  const reply = frames.find((m) => m.id === id && m.type !== "event") ?? null;
  return reply && { ...reply, event: frames.find((m) => m.type === "event" && m.request === id) ?? null };
}

/** Roll with the page's dice form; the seq of the roll's log entry. */
export async function roll(page, formula, label, { secret = false } = {}) {
  const form = page.locator("form.roll-form");
  await form.locator('input[name="formula"]').fill(formula);
  await form.locator('input[name="label"]').fill(label);
  const box = form.locator('input[name="secret"]');
  if (await box.count()) await box.setChecked(secret);
  await form.locator('button[type="submit"]').click();
  const entry = page.locator("#log li.kind-roll", { hasText: label }).first();
  await entry.waitFor();
  return Number(await entry.getAttribute("data-seq"));
}

/** The dice a log entry shows: each die's text and classes. */
export const diceOf = (page, seq) =>
  page.$$eval(`#log li[data-seq="${seq}"] .die`, (dice) => dice.map((d) => ({ text: d.textContent, classes: d.className })));

/** Ask the page's statistics panel for `scope` and wait for its charts; what the
 * panel drew ({section: {faces: [[face, count], …]}}, the session's section as
 * "session") and the `stats` reply the page received (from its recorded frames). */
export async function statsOf(page, gate, scope = "all") {
  await page.evaluate(() => document.getElementById("stats").replaceChildren()); // a new reply draws anew
  await page.selectOption("#stats-scope", scope);
  await page.click('#stats-form button[type="submit"]');
  await page.waitForSelector("#stats .stats-panel").catch(async (error) => {
    throw new Error(`no statistics drawn (the page says: ${await page.textContent("#message")}): ${error.message}`);
  });
  const replies = gate.frames.map((f) => JSON.parse(f)).filter((m) => m.type === "result" && m.stats);
  const drawn = await page.$$eval("#stats .stats-panel > section", (sections) => Object.fromEntries(sections.map(
    (section) => [section.dataset.actor ?? "session", Object.fromEntries([...section.querySelectorAll("svg.stats-chart")]
      .map((chart) => [chart.dataset.faces, [...chart.querySelectorAll("rect.stats-bar")]
        .map((bar) => [Number(bar.dataset.face), Number(bar.dataset.count)])]))])));
  return { drawn, reply: replies.at(-1)?.stats ?? null, replies: replies.length };
}

/** Send `request` to `table` as its GM does over the protocol (as Foundry or
 * `rollbridge connect` would), from a page of the server's origin (node 20 has no
 * WebSocket); resolves with the reply. */
export function gmRequest(page, table, token, request) {
  return page.evaluate(({ table, token, request }) => new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${location.host}/tables/${table}`);
    socket.onopen = () => socket.send(JSON.stringify({ type: "hello", id: "gm-hello", table, token }));
    socket.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      if (frame.id === "gm-hello") socket.send(JSON.stringify(request));
      if (frame.id === request.id) {
        socket.close();
        resolve(frame);
      }
    };
    socket.onerror = () => reject(new Error("the GM's socket failed"));
  }), { table, token, request });
}

/** Add an actor to `table` as its GM does over the protocol; resolves with the reply. */
export function addActor(page, table, token, actor) {
  return gmRequest(page, table, token, { type: "actor.create", id: `add-${actor.id}`, actor });
}

/** Record each line the page's live region (#announce) is given, as a screen reader
 * hears it, from now on: told(page) gives them. */
export const listen = (page) => page.evaluate(() => {
  window.rbTold = [];
  new MutationObserver((records) => records.forEach((record) => record.addedNodes
    .forEach((node) => window.rbTold.push(node.textContent))))
    .observe(document.getElementById("announce"), { childList: true });
});

/** The lines the page's live region was given since listen(page). */
export const told = (page) => page.evaluate(() => window.rbTold.slice());

/** The page's renderer crashed (as the DevTools protocol's `Page.crash` does it: its
 * reply never comes, the page's `crash` event does). A phone discarding a tab ends
 * its page so too: no pagehide, nothing the page can do on its way out. */
export async function crash(page) {
  const crashed = new Promise((resolve) => { page.once("crash", resolve); });
  const devtools = await page.context().newCDPSession(page);
  devtools.send("Page.crash").catch(() => {});
  await crashed;
}

/** Everything a page's tab holds in its `sessionStorage`. */
export const storageOf = (page) => page.evaluate(() => Object.fromEntries(Object.entries(sessionStorage)));

/** A new tab of `context` holding `storage` in its `sessionStorage` as it opens `url`
 * (with no token in its address): a stand-in for a tab of the browser's whose storage
 * it is — a copy of a tab (the browser's *Duplicate*), or the tab itself loaded anew
 * after its page crashed or was discarded (Chromium keeps a tab's storage in the
 * browser, not in its page; the DevTools client refuses to load a crashed page) —
 * once it has joined and its log from before is in; recorded as openPage's pages. */
export async function tabHolding(context, storage, name, url, trouble) {
  const page = watched(await context.newPage(), name, trouble);
  await page.addInitScript((held) => {
    if (sessionStorage.getItem("rollbridge.test.held")) return; // once: a reload keeps the tab's own
    sessionStorage.setItem("rollbridge.test.held", "1");
    for (const [key, value] of Object.entries(held)) sessionStorage.setItem(key, value);
  }, storage);
  await page.goto(url);
  await connected(page);
  await page.waitForFunction(() => document.body.dataset.history !== undefined);
  return page;
}

/** What a page shows that no one should read: wider than the screen, and any text of
 * the page's own machinery (a message id, `undefined`, a placeholder left in, an event
 * kind's code, the id of an actor — `hero`, `guard`: the actors of the tables of
 * test_web_phone_night.py's seed_night are named otherwise). */
export const looksOf = (page) => page.evaluate(() => {
  const text = document.body.innerText;
  const odd = text.match(
    /ROLLBRIDGE\.[\w.]+|undefined|NaN|\[object \w+\]|\{[a-z_]+\}|\b(?:actor|encounter|approval|dice)\.[a-z.]+|\b(?:hero|guard)\b/g,
  ) ?? [];
  // where the first is, to find it
  const at = odd.length ? text.indexOf(odd[0]) : -1;
  const where = at < 0 ? [] : [text.slice(Math.max(0, at - 80), at + 40)];
  const wide = [...document.querySelectorAll("body *")].filter((node) => {
    const box = node.getBoundingClientRect();
    return box.width > 0 && node.checkVisibility() && box.right > window.innerWidth + 1;
  }).map((node) => `${node.tagName.toLowerCase()}.${[...node.classList].join(".")}`).slice(0, 5);
  return { odd: [...new Set(odd)], wide, scroll: document.documentElement.scrollWidth - window.innerWidth,
    ...(where.length ? { where } : {}) };
});

/** The ruleset's action of each table of test_web_phone_night.py's seed_night, and
 * what the player fills in. */
export const NIGHTS = [
  { table: "sr2", action: "attack", async fill(form) {
    await form.locator('select[name="weapon"]').selectOption("Hackler");
    await form.locator('input[name="skill"]').fill("5");
    await form.locator('input[name="attacker_pool"]').fill("2");
    await form.locator('input[name="target"][value="guard"]').check();
  } },
  { table: "techlevel", action: "hit", async fill(form) {
    await form.locator('input[name="dice"]').fill("1d6");
    await form.locator('input[name="tl"]').fill("2");
    await form.locator('input[name="target"][value="guard"]').check();
  } },
  { table: "bandits", action: "move", async fill(form) {
    await form.locator("details.more-params > summary").tap();
    await form.locator('input[name="move"]').fill("Sneak past");
    await form.locator('select[name="stat"]').selectOption({ index: 1 });
  } },
  { table: "wilddie", action: "trait", async fill(form) {
    await form.locator('select[name="trait"]').selectOption("notice");
  } },
];

/** Ask the test to restart the server (RB_RESTART printed; its signal from the
 * restart before, the file RB_SIGNAL, taken away first). */
export function restart() {
  rmSync(process.env.RB_SIGNAL, { force: true });
  process.stdout.write("RB_RESTART\n");
}

/** The test's signal that the server serves again (the file RB_SIGNAL), a bound for
 * one that never comes. */
export async function restarted() {
  const { until, changed } = waiter();
  const timer = setInterval(changed, 100);
  const ok = await until(() => existsSync(process.env.RB_SIGNAL), 60_000);
  clearInterval(timer);
  return ok;
}

/** What Chromium itself logs (a console error no page wrote) when a page's socket
 * tries the port while the server is down: a phone sees the same at a restart, and
 * whether the page comes back is what the walk asserts. Taken out of `trouble` for the
 * restart's window only (counted in the result), so any other error still fails. */
const REFUSED_WHILE_DOWN =
  /: console: WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/tables\/\w+' failed: Error in connection establishment: net::ERR_CONNECTION_REFUSED$/;

/** The connection-refused errors recorded since `from` (an index into
 * `trouble.errors`) taken out of it; how many. */
export function refusedWhileDown(trouble, from) {
  const since = trouble.errors.slice(from);
  const refused = since.filter((error) => REFUSED_WHILE_DOWN.test(error));
  trouble.errors.splice(from, since.length, ...since.filter((error) => !REFUSED_WHILE_DOWN.test(error)));
  return refused.length;
}
