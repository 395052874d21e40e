// The web view in headless Chromium against a real rollbridge server (started by
// tests/web/test_web_browser.py, which passes everything in the environment):
// a GM page and a Czech player's phone page on one table, then the overlay, then
// approvals and adjustments, then a table whose actor's name is HTML. Prints one line `RESULT {json}` of what the
// pages showed and received; the Python test judges it. Exits non-zero when a
// step cannot be done at all.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_SHOTS (a folder for the screenshots, or
// empty for none).

import process from "node:process";

import {
  DESKTOP, PHONE, connected, diceOf, fillAttack, joinedPage, launch, logSeqs, openPage, roll, seqOf, statsOf, tapWebSocket,
  trackOf, waitSeq,
} from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const SHOTS = env.RB_SHOTS ?? "";
const trouble = { errors: [], dialogs: [] };
const result = {};

function step(name) {
  process.stderr.write(`web: ${name}\n`);
}

/** The event of `seq` among a page's received frames (JSON text), or null. */
function frameEvent(frames, seq) {
  for (const frame of frames) {
    const message = JSON.parse(frame);
    if (message.type === "event" && message.seq === seq) return message;
  }
  return null;
}

const browser = await launch(env.RB_CHROMIUM);
try {
  step("the GM joins with the token in the fragment");
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`, TOKENS.web.gm,
    { tap: true });
  result.join = {
    gmAddress: await gm.evaluate(() => location.href),
    gmRole: await gm.textContent("#role"),
  };

  step("the player types the token in, on a phone");
  const player = await openPage(browser, "player", { ...PHONE, locale: "cs-CZ", timezoneId: "Europe/Prague" }, trouble);
  const gate = await tapWebSocket(player);
  await player.goto(`${BASE}/tables/web`);
  await player.waitForSelector("#join-form:not([hidden])");
  await player.waitForFunction(() => document.documentElement.lang === "cs");
  result.words = {
    joinButton: await player.textContent('#join-form button[type="submit"]'),
    joinLabel: await player.textContent('label[for="token"]'),
  };
  await player.fill("#token", TOKENS.web.player);
  await player.click('#join-form button[type="submit"]');
  await connected(player);
  result.join.playerRole = await player.textContent("#role");
  Object.assign(result.words, {
    lang: await player.evaluate(() => document.documentElement.lang),
    headings: await player.$$eval("main h2", (l) => l.filter((h) => h.checkVisibility()).map((h) => h.textContent)),
    status: await player.textContent("#status"),
    gmLang: await gm.evaluate(() => document.documentElement.lang),
    gmHeadings: await gm.$$eval("main h2", (l) => l.map((h) => h.textContent)),
  });
  result.join.playerActions = await player.$$eval("#action-select option", (o) => o.map((x) => x.value));
  result.join.playerActors = await player.$$eval('form.action-form select[name="actor"] option',
    (o) => o.map((x) => x.value));

  step("a wrong token is refused: the join form again, with the server's reason");
  const stranger = await openPage(browser, "stranger", PHONE, trouble);
  await stranger.goto(`${BASE}/tables/web#token=rbt_not-a-token-of-this-table`);
  await stranger.waitForSelector('body[data-status="refused"]');
  result.refused = {
    joinShown: await stranger.isVisible("#join-form"),
    tableHidden: await stranger.isHidden("#table"),
    message: await stranger.textContent("#message"),
  };
  await stranger.context().close();

  step("a roll in the GM's page appears in the player's");
  const rollSeq = await roll(gm, "4d6x", "opening roll");
  await waitSeq(player, rollSeq);
  result.roll = {
    seq: rollSeq,
    gm: await diceOf(gm, rollSeq),
    player: await diceOf(player, rollSeq),
    frame: frameEvent(gate.frames, rollSeq)?.data?.roll?.groups ?? null,
    playerText: await player.textContent(`#log li[data-seq="${rollSeq}"]`),
    frameAt: frameEvent(gate.frames, rollSeq)?.at ?? null,
    time: await player.$eval(`#log li[data-seq="${rollSeq}"] .entry-head time`,
      (t) => ({ datetime: t.dateTime, text: t.textContent, title: t.title })),
  };

  step("the player's form resolves Tukan's attack on Rook");
  const before = { gm: await trackOf(gm, "rook", "physical"), player: await trackOf(player, "rook", "physical") };
  await player.selectOption("#action-select", "attack");
  const form = player.locator('form.action-form[data-action="attack"]');
  await form.locator('select[name="actor"]').selectOption("tukan");
  await form.locator('input[name="target"][value="rook"]').check();
  await fillAttack(form);
  await form.locator('button[type="submit"]').click();
  const attackEntry = player.locator("#log li.kind-resolution").first();
  await attackEntry.waitFor();
  const attackSeq = Number(await attackEntry.getAttribute("data-seq"));
  await waitSeq(gm, attackSeq);
  const frame = frameEvent(gate.frames, attackSeq);
  result.attack = {
    seq: attackSeq,
    before,
    after: { gm: await trackOf(gm, "rook", "physical"), player: await trackOf(player, "rook", "physical") },
    frameRook: (frame?.actors ?? []).find((a) => a.id === "rook")?.common ?? null,
    narration: { gm: await gm.textContent(`#log li[data-seq="${attackSeq}"] .narration`),
      player: await player.textContent(`#log li[data-seq="${attackSeq}"] .narration`) },
    frameNarration: frame?.data?.narration ?? null,
    stepsOpen: await player.$eval(`#log li[data-seq="${attackSeq}"] details.steps`, (d) => d.open),
    steps: await player.$$eval(`#log li[data-seq="${attackSeq}"] details.steps li`, (l) => l.length),
    diceShown: (await diceOf(player, attackSeq)).length,
  };
  result.phoneWidth = await player.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  if (SHOTS) {
    await player.evaluate(() => window.scrollTo(0, 0));
    await player.screenshot({ path: `${SHOTS}/web-player-phone.png` });
  }

  step("undo in the GM's page reverts it in the player's");
  const historyButton = async (page, name) => page.$eval(`#history button[name="${name}"]`,
    (b) => ({ text: b.textContent, seq: b.dataset.seq ?? null,
      disabled: b.disabled || b.getAttribute("aria-disabled") === "true" }));
  const beforeUndo = { undo: await historyButton(gm, "undo"), redo: await historyButton(gm, "redo") };
  await gm.click('#history button[name="undo"]');
  const undoEntry = player.locator("#log li.kind-undo").first();
  await undoEntry.waitFor();
  const undoSeq = Number(await undoEntry.getAttribute("data-seq"));
  await waitSeq(gm, undoSeq);
  result.undo = {
    seq: undoSeq,
    player: await trackOf(player, "rook", "physical"),
    gm: await trackOf(gm, "rook", "physical"),
    buttons: { before: beforeUndo, after: { undo: await historyButton(gm, "undo"), redo: await historyButton(gm, "redo") } },
  };

  step("a secret roll of the GM never reaches the player");
  const secretSeq = await roll(gm, "17d6+48611", "ambush check", { secret: true });
  await waitSeq(player, secretSeq);
  result.secret = {
    seq: secretSeq,
    gmText: await gm.textContent(`#log li[data-seq="${secretSeq}"]`),
    playerClass: await player.getAttribute(`#log li[data-seq="${secretSeq}"]`, "class"),
    playerHtml: await player.content(),
    playerFrames: gate.frames.filter((f) => f.includes("48611") || f.includes("ambush")).length,
    playerFrame: frameEvent(gate.frames, secretSeq),
    playerTimes: await player.$$eval(`#log li[data-seq="${secretSeq}"] time`, (l) => l.length),
    gmTime: await gm.getAttribute(`#log li[data-seq="${secretSeq}"] time`, "datetime"),
  };
  result.secret.playerHas = result.secret.playerHtml.includes("48611") || result.secret.playerHtml.includes("ambush");
  delete result.secret.playerHtml;

  step("the player's line drops; the GM rolls twice meanwhile; the player resumes");
  gate.open = false;
  gate.drop();
  await player.waitForSelector('body[data-status="waiting"]');
  const away = [await roll(gm, "1d6", "while away one"), await roll(gm, "2d6", "while away two")];
  gate.open = true;
  await waitSeq(player, away[1]);
  await connected(player);
  const welcomes = gate.frames.map((f) => JSON.parse(f)).filter((m) => m.type === "welcome");
  result.resume = {
    away,
    gm: await logSeqs(gm),
    player: await logSeqs(player),
    welcomes: welcomes.map((w) => ({ seq: w.seq, resume: w.resume ?? null, locale: w.locale })),
    gaps: await player.$$eval("#log li.entry-gap", (l) => l.length),
    awayTexts: await Promise.all(away.map((s) => player.textContent(`#log li[data-seq="${s}"]`))),
  };

  step("an event skipped for the player (as a server bug would): the page resumes from before the gap");
  const framesBefore = gate.frames.length;
  const isEvent = (frame) => frame.includes('"type":"event"');
  gate.swallow = (frame) => isEvent(frame) && gate.swallowed.length === 0;
  const skipped = [await roll(gm, "1d8", "skipped once"), await roll(gm, "1d10", "after the gap")];
  await waitSeq(player, skipped[1]);
  await connected(player);
  gate.swallow = () => false;
  const afterGap = gate.frames.slice(framesBefore).map((f) => JSON.parse(f));
  result.gap = {
    skipped,
    swallowed: gate.swallowed.map((f) => JSON.parse(f).seq),
    gm: await logSeqs(gm),
    player: await logSeqs(player),
    welcomes: afterGap.filter((m) => m.type === "welcome").map((w) => ({ seq: w.seq, resume: w.resume ?? null })),
    events: afterGap.filter((m) => m.type === "event").map((m) => m.seq),
    texts: await Promise.all(skipped.map((s) => player.textContent(`#log li[data-seq="${s}"]`))),
  };

  step("both pages count the night's dice: the player's without the GM's secret roll");
  await waitSeq(gm, skipped[1]);
  result.stats = {
    seq: await seqOf(gm),
    playerSeq: await seqOf(player),
    secretDice: (frameEvent(gm.gate.frames, secretSeq)?.data?.roll?.groups ?? [])
      .flatMap((group) => group.dice.map((die) => die.faces)),
    gm: await statsOf(gm, gm.gate),
    player: await statsOf(player, gate),
  };
  result.stats.gmHour = await statsOf(gm, gm.gate, "hour");
  result.stats.playerLine = await player.textContent("#stats [data-session] .stats-line");
  result.stats.gmLine = await gm.textContent("#stats [data-session] .stats-line");
  if (SHOTS) {
    await gm.evaluate(() => window.scrollTo(0, 0));
    await gm.screenshot({ path: `${SHOTS}/web-gm.png`, fullPage: true }); // the statistics below the forms
    await gm.locator("#stats-panel").screenshot({ path: `${SHOTS}/web-stats.png` });
  }

  step("a player who joins late reads the log from before");
  const late = await joinedPage(browser, "late", PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player);
  await late.waitForSelector("body[data-history]");
  result.late = {
    history: Number(await late.evaluate(() => document.body.dataset.history)),
    seqs: await logSeqs(late),
    gm: await logSeqs(gm),
    secretClass: await late.getAttribute(`#log li[data-seq="${secretSeq}"]`, "class"),
    rollTime: await late.getAttribute(`#log li[data-seq="${rollSeq}"] time`, "datetime"),
    hasSecret: (await late.content()).includes("48611"),
    requests: late.requests,
  };
  await late.context().close();

  step("the overlay, with an observer's token");
  const screen = { viewport: { width: 960, height: 540 }, deviceScaleFactor: 1 };
  const overlay = await joinedPage(browser, "overlay", screen, trouble, `${BASE}/tables/web/overlay`, TOKENS.web.observer);
  // on opening: the latest roll before it (the roll after the skipped event)
  await overlay.waitForSelector(`#latest .shown[data-seq="${skipped[1]}"]`);
  const shownSeq = await roll(gm, "4d6x", "for the stream");
  await overlay.waitForSelector(`#latest .shown[data-seq="${shownSeq}"]`);
  result.overlay = {
    seq: shownSeq,
    address: await overlay.evaluate(() => location.href),
    background: await overlay.evaluate(() => [document.documentElement, document.body].map((n) => {
      const style = getComputedStyle(n);
      return [style.backgroundColor, style.backgroundImage];
    })),
    controls: await overlay.$$eval("button, input, select, textarea, form", (l) => l.length),
    dice: (await overlay.$$eval("#latest .die", (l) => l.map((d) => d.textContent))),
    gmDice: (await diceOf(gm, shownSeq)).map((d) => d.text),
    actors: await overlay.$$eval("#actors .actor", (l) => l.map((a) => a.dataset.actor)),
  };
  if (SHOTS) await overlay.screenshot({ path: `${SHOTS}/web-overlay.png`, omitBackground: true });

  step("approvals and adjustments on a table where players ask first");
  const apGm = await joinedPage(browser, "approval-gm", DESKTOP, trouble, `${BASE}/tables/approval`, TOKENS.approval.gm);
  const apPlayer = await joinedPage(browser, "approval-player", PHONE, trouble, `${BASE}/tables/approval`,
    TOKENS.approval.player, { tap: true });
  result.approval = {
    gmPanelHidden: { player: await apPlayer.isHidden("#gm-panel"), gm: await apGm.isHidden("#gm-panel") },
  };
  const ask = async (formula, label) => {
    const form = apPlayer.locator("form.roll-form");
    await form.locator('input[name="formula"]').fill(formula);
    await form.locator('input[name="label"]').fill(label);
    await form.locator('button[type="submit"]').click();
    await apPlayer.waitForFunction(() => document.getElementById("message").textContent.includes("approval"));
    const item = apGm.locator("#pending li.pending-item", { hasText: formula });
    await item.waitFor();
    return item;
  };
  await (await ask("2d6+1", "may I")).locator('button[name="approve"]').click();
  const approved = apPlayer.locator("#log li.kind-roll", { hasText: "may I" });
  await approved.waitFor();
  result.approval.approvedSeq = Number(await approved.getAttribute("data-seq"));
  await apGm.locator(`#log li[data-seq="${result.approval.approvedSeq}"]`).waitFor();
  result.approval.pendingAfterApprove = await apGm.$$eval("#pending li.pending-item", (l) => l.length);
  await (await ask("3d6", "no way")).locator('button[name="reject"]').click();
  const rejected = apPlayer.locator("#log li.kind-approval-rejected").first();
  await rejected.waitFor();
  result.approval.rejectedRolls = await apPlayer.$$eval("#log li.kind-roll",
    (l) => l.filter((x) => x.textContent.includes("no way")).length);
  result.approval.rejectedMessage = await apPlayer.textContent("#message");
  const adjust = apGm.locator("form.adjust-form");
  await adjust.locator('select[name="actor"]').selectOption("tukan");
  await adjust.locator('select[name="track"]').selectOption("physical");
  await adjust.locator('input[name="delta"]').fill("3");
  await adjust.locator('button[type="submit"]').click();
  await apPlayer.locator("#log li.kind-adjusted").first().waitFor();
  result.approval.adjusted = {
    player: await trackOf(apPlayer, "tukan", "physical"),
    gm: await trackOf(apGm, "tukan", "physical"),
  };

  const tukanShows = (text) => apPlayer.waitForFunction((t) =>
    document.querySelector('#actors [data-actor="tukan"] [data-track="physical"] .track-value')?.textContent === t, text);
  await apGm.click('#history button[name="undo"]');
  await tukanShows("0/10");
  await apGm.click('#history button[name="redo"]');
  await tukanShows("3/10");
  result.approval.redone = await trackOf(apPlayer, "tukan", "physical");

  step("an encounter: the GM starts it, the player ends Tukan's turn");
  await apGm.click('#encounter button[name="start"]');
  await apPlayer.waitForSelector('#encounter li.current[data-actor="tukan"]');
  result.encounter = {
    order: await apPlayer.$$eval("#encounter li.turn", (l) => l.map((x) => x.dataset.actor)),
    playerButtons: await apPlayer.$$eval("#encounter button", (l) => l.map((x) => x.name)),
  };
  result.encounter.stats = await statsOf(apPlayer, apPlayer.gate, "encounter");
  await apPlayer.click('#encounter button[name="next"]');
  await apGm.waitForSelector('#encounter li.current[data-actor="guard-a"]');
  await apPlayer.waitForSelector('#encounter li.current[data-actor="guard-a"]');
  result.encounter.afterNext = {
    gm: await apGm.getAttribute("#encounter li.current", "data-actor"),
    player: await apPlayer.getAttribute("#encounter li.current", "data-actor"),
  };
  // the guard's turn is not the player's to end: no button for it (the GM keeps hers)
  result.encounter.buttonsOnGuardsTurn = {
    player: await apPlayer.$$eval("#encounter button", (l) => l.map((x) => x.name)),
    gm: await apGm.$$eval("#encounter button", (l) => l.map((x) => x.name)),
  };
  await apGm.click('#encounter button[name="end"]');
  await apPlayer.waitForSelector("#encounter p.empty");

  step("a hostile actor name is shown as text");
  const xssGm = await joinedPage(browser, "xss-gm", DESKTOP, trouble, `${BASE}/tables/xss`, TOKENS.xss.gm);
  const xssPlayer = await joinedPage(browser, "xss-player", PHONE, trouble, `${BASE}/tables/xss`, TOKENS.xss.player);
  const xssOverlay = await joinedPage(browser, "xss-overlay", DESKTOP, trouble, `${BASE}/tables/xss/overlay`, TOKENS.xss.observer);
  // the player acts for the actor: its name is in the form, the narration and the dice labels
  await xssPlayer.selectOption("#action-select", "attack");
  const xssForm = xssPlayer.locator('form.action-form[data-action="attack"]');
  await xssForm.locator('input[name="target"][value="guard-a"]').check();
  await fillAttack(xssForm);
  await xssForm.locator('button[type="submit"]').click();
  await xssPlayer.locator("#log li.kind-resolution").first().waitFor();
  await roll(xssGm, "2d6", "<img src=x onerror=alert(2)>");
  await xssOverlay.waitForSelector("#latest .shown.kind-roll");
  result.xss = {};
  for (const [name, page] of [["gm", xssGm], ["player", xssPlayer], ["overlay", xssOverlay]]) {
    await waitSeq(page, await seqOf(xssGm));
    result.xss[name] = {
      images: await page.$$eval("img", (l) => l.length),
      names: await page.$$eval('#actors [data-actor="evil"] .actor-name', (l) => l.map((n) => n.textContent)),
      text: await page.evaluate(() => document.body.textContent),
    };
  }
  step("the policy is in force: no HTML from a string, no inline script or style");
  const probe = await browser.newPage(); // unwatched: the refusals below are console errors
  await probe.goto(`${BASE}/tables/xss`);
  result.policy = await probe.evaluate(() => {
    const attempt = (fn) => {
      try {
        fn();
        return "allowed";
      } catch (error) {
        return error.name;
      }
    };
    const box = document.createElement("p");
    document.body.append(box);
    box.setAttribute("style", "color: rgb(255, 0, 0)");
    return {
      innerHTML: attempt(() => { document.body.innerHTML = "<b>bold</b>"; }),
      inlineScript: attempt(() => {
        const script = document.createElement("script");
        script.textContent = "window.ranInline = true";
        document.head.append(script);
      }),
      ranInline: window.ranInline === true,
      inlineStyle: getComputedStyle(box).color,
    };
  });
  await probe.close();
  result.requests = [gm, player, overlay, apGm, apPlayer, xssGm, xssPlayer, xssOverlay].flatMap((p) => p.requests);
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
