// What a screen reader is told and what the log marks, on the web view
// (tests/web/test_web_told.py): a player's phone whose own request waits on a slow
// line while another's secret event comes. RB_CASE names the case; prints one line
// `RESULT {json}` of what the pages showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import {
  DESKTOP, caseScript, connected, flush, gmRequest, hide, joinedPage, listen, openPage, runCase, seqOf, SMALL_PHONE,
  told, tukanHitsRook, waitSeq,
} from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("told");

/** The player's roll `label` sent on a held line (its reply not come), a secret
 * event and then the GM's open roll `open` made meanwhile: what the player's phone
 * told a screen reader while the roll waited, and after its reply (`settled`, a
 * selector the page shows once it is in). The secret is the GM's secret roll, or with
 * `another`, a roll of another player's page (the table's player token on a laptop)
 * that waits for the GM's approval. */
async function whileMineWaits(table, label, open, settled, { another = false } = {}) {
  const gm = await openPage(this.browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble);
  await gm.goto(`${BASE}/tables/${table}`);
  const player = await joinedPage(this.browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble,
    `${BASE}/tables/${table}`, TOKENS[table].player, { tap: true });
  await listen(player);
  const gate = player.gate;
  gate.hold = true;
  const form = player.locator("form.roll-form");
  await form.locator('input[name="formula"]').fill("3d6");
  await form.locator('input[name="label"]').fill(label);
  await form.locator('button[type="submit"]').click();
  await flush(player, { answered: false }); // the roll is on the line, held
  const seq = await seqOf(player);
  const token = TOKENS[table].gm;
  if (another) {
    await gmRequest(gm, table, TOKENS[table].player, { type: "roll", id: `${table}-another`, formula: "1d6" });
  } else await gmRequest(gm, table, token, { type: "roll", id: `${table}-secret`, formula: "1d6", secret: true });
  await gmRequest(gm, table, token, { type: "roll", id: `${table}-open`, formula: "2d6", label: open });
  await waitSeq(player, seq + 2);
  const held = await told(player);
  const hidden = await player.locator(`#log li[data-seq="${seq + 1}"]`).textContent();
  gate.release();
  await player.waitForSelector(settled);
  await flush(player);
  return { held, after: await told(player), hidden, secretSeq: seq + 1 };
}

/** What a page's action form line and message line say. */
const linesOf = (page) => page.evaluate(() => ({
  action: document.querySelector("#action .form-status")?.textContent ?? null,
  message: document.getElementById("message").textContent,
}));

/** `count` rolls of `formula` by the GM at `table` over one connection of a page of the
 * server's origin, each answered before the next is sent. */
const gmRolls = (page, table, token, count, formula = "1d6") => page.evaluate(({ table, token, count, formula }) => new Promise((resolve, reject) => {
  const socket = new WebSocket(`ws://${location.host}/tables/${table}`);
  let sent = 0;
  const next = () => {
    if (sent === count) {
      socket.close();
      resolve(sent);
      return;
    }
    sent += 1;
    socket.send(JSON.stringify({ type: "roll", id: `many-${sent}`, formula, label: `meanwhile ${sent}` }));
  };
  socket.onopen = () => socket.send(JSON.stringify({ type: "hello", id: "many-hello", table, token }));
  socket.onmessage = (message) => {
    const frame = JSON.parse(message.data);
    if (frame.id === "many-hello" || frame.id === `many-${sent}`) next();
  };
  socket.onerror = () => reject(new Error("the GM's socket failed"));
}), { table, token, count, formula });

/** The GM's page (for its requests) and a Russian phone's at the table `web`, whose
 * Tukan has just hit Rook with the action form (an undoable change): its lines. */
async function attacked(browser) {
  const gm = await openPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble);
  await gm.goto(`${BASE}/tables/web`);
  const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "ru-RU" }, trouble,
    `${BASE}/tables/web`, TOKENS.web.player, { tap: true });
  await tukanHitsRook(player);
  return { gm, player, attack: await linesOf(player) };
}

/** Tukan's attack (attacked) undone by the GM while the phone's line is down, and
 * `count` rolls of `formula` after it; the line back and the page connected again:
 * its pages, and how many frames it had sent before the line went down (`from`). In
 * `result`: the attack's lines, the undo's reply, the resumes of the welcomes. */
async function undoneWhileDown(browser, result, count, formula = "1d6") {
  const { gm, player, attack } = await attacked(browser);
  result.attack = attack;
  step(`the line goes down; the GM undoes the attack and rolls ${count} times ${formula}`);
  player.gate.open = false;
  player.gate.drop();
  await player.waitForFunction(() => document.body.dataset.status !== "connected");
  const from = player.gate.sent.length;
  result.undo = await gmRequest(gm, "web", TOKENS.web.gm, { type: "undo", id: "away-undo" });
  await gmRolls(gm, "web", TOKENS.web.gm, count, formula);
  step("the line is back");
  player.gate.open = true;
  await player.evaluate(() => window.dispatchEvent(new Event("online")));
  await connected(player);
  result.welcomes = player.gate.frames.map((f) => JSON.parse(f)).filter((m) => m.type === "welcome")
    .map((m) => m.resume ?? null);
  return { gm, player, from };
}

/** Wait (a bound only for a page that never asks) for the page's `state` reply that
 * says what the GM undid; whether it came. */
const undoneAnswered = (player) => player.gate.until(() => player.gate.frames.map((f) => JSON.parse(f))
  .some((m) => m.type === "result" && m.undone && typeof m.undone === "object"), 20_000);

const cases = {
  /** At a table whose GM approves nothing first: the roll cannot come back as a
   * secret of its own, so the GM's secret roll is told at once, then the open roll. */
  async noApproval(browser, result) {
    step("a roll held at a table without approval");
    Object.assign(result, await whileMineWaits.call({ browser }, "web", "held roll", "in the open",
      '#log li.kind-roll:has-text("held roll")'));
  },

  /** At a table whose GM approves players' requests first: the GM's secret roll's
   * placeholder may be a request waiting (the roll's own, or another's): told once
   * the reply is in, as either, then the open roll behind it. */
  async approval(browser, result) {
    step("a roll held at a table with approval");
    Object.assign(result, await whileMineWaits.call({ browser }, "approval", "held roll", "in the open",
      '#log li.kind-mine'));
  },

  /** As `approval`, the placeholder another player's roll waiting for the GM: told
   * after the roll's reply, as either, before the GM's open roll behind it. */
  async anotherPlayer(browser, result) {
    step("a roll held at a table with approval; another player's roll waits for the GM");
    Object.assign(result, await whileMineWaits.call({ browser }, "approval", "held roll", "in the open",
      '#log li.kind-mine', { another: true }));
  },

  /** Tukan's attack undone by the GM while the phone had the tab discarded (the
   * test's page keeps nothing after it is hidden, as a discarded page writes nothing),
   * and 201 rolls after it: loaded anew, the page reads the latest 200 events, which
   * hold no undo; its lines said the result as kept. */
  async reloadPast(browser, result) {
    const { gm, player, attack } = await attacked(browser);
    result.attack = attack;
    step("the GM undoes the attack while the tab is discarded, and rolls 201 times");
    await hide(player);
    await player.evaluate(() => { Storage.prototype.setItem = () => {}; });
    result.undo = await gmRequest(gm, "web", TOKENS.web.gm, { type: "undo", id: "away-undo" });
    await gmRolls(gm, "web", TOKENS.web.gm, 201);
    step("loaded anew");
    await player.reload();
    await player.waitForFunction(() => document.body.dataset.status === "connected"
      && document.body.dataset.history !== undefined
      && document.querySelector("#action .form-status")?.textContent);
    result.history = Number(await player.evaluate(() => document.body.dataset.history));
    result.answered = await undoneAnswered(player);
    await flush(player);
    result.after = await linesOf(player);
  },

  /** Tukan's attack undone by the GM while the phone's line was down, after more
   * events than the server resends at once (the test's server resends 64 KiB): back,
   * the page has the table as it is now and none of the events it missed; its lines
   * said the result. */
  async resumedPast(browser, result) {
    const { player } = await undoneWhileDown(browser, result, 40, "100d6");
    await player.waitForFunction(() => document.querySelector("#log .entry-gap"));
    result.answered = await undoneAnswered(player);
    await flush(player);
    result.after = await linesOf(player);
  },

  /** Tukan's attack undone by the GM while the phone's line was down a moment: back,
   * the server resends what it missed (the undo among it), and the page asks nothing
   * of `state`: what undid its lines' events is among what it is sent. */
  async resumedRecovered(browser, result) {
    const { player, from } = await undoneWhileDown(browser, result, 2);
    await flush(player);
    result.asked = player.gate.sent.slice(from).map((f) => JSON.parse(f))
      .filter((m) => m.type === "state" && m.undone !== undefined).length;
    result.after = await linesOf(player);
  },
};

await runCase(cases, trouble);
