// The browser test of the server's dice for every Foundry roll (issue 15, item 6):
// one Foundry client (the GM's page on the stand-in, with the world setting "The
// server's dice for every roll" on) and a real `rollbridge serve` (started by
// tests/foundry/test_foundry_browser.py). In the page, a plain Foundry roll —
// `new Roll("2d20").evaluate()`, as any system sheet makes it, not through the
// module's API — draws its dice from the server through the `rollbridge`
// fulfillment method; the test then reads the server's own log (the database)
// for the `dice.drawn` event with the same results. Then the server goes away
// (the page's connection is stopped): the next roll takes Foundry's own dice,
// the user is told once, and its chat card says "local dice, not the server's".
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm}; never printed),
// RB_GENERATION (12 or 13), RB_CHROMIUM, RB_USER_DATA.

import assert from "node:assert/strict";
import process from "node:process";

import { openGmPage } from "./gmpage.mjs";

const step = (name) => process.stderr.write(`serverdice: ${name}\n`);

const { context, page, consoleLines, pageErrors, hide } = await openGmPage({ serverDice: "1" });
try {
  step("a plain Foundry roll");
  const served = await page.evaluate(async () => {
    const roll = new Roll("2d20");
    await roll.evaluate();
    await ChatMessage.create({ content: "", rolls: [roll], speaker: ChatMessage.getSpeaker() });
    return {
      defaultMethod: CONFIG.Dice.fulfillment.defaultMethod,
      results: roll.dice.flatMap((d) => d.results.map((r) => r.result)),
      total: roll.total,
      mark: structuredClone(roll.options.rollbridge),
    };
  });
  // what a roll waits for the server's dice: 20 rolls of two terms (two draws each)
  const timing = await page.evaluate(async () => {
    const times = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      await new Roll("2d20 + 1d6").evaluate();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return { rolls: times.length, median_ms: times[10], max_ms: times.at(-1) };
  });
  process.stderr.write(`serverdice: 2d20 + 1d6 with the server's dice: ${JSON.stringify(timing)}\n`);
  assert.equal(served.defaultMethod, "rollbridge");
  assert.equal(served.mark.dice, "server");
  assert.equal(served.results.length, 2);

  step("the server gone: Foundry's own dice, marked, told once");
  const local = await page.evaluate(async () => {
    rbE2E.api().disconnect();
    const before = FoundryStandin.log.notifications.length;
    const rolls = [];
    for (const formula of ["1d20 + 3", "2d6"]) {
      const roll = new Roll(formula);
      await roll.evaluate();
      rolls.push(roll);
    }
    const message = await ChatMessage.create({ content: "", rolls: [rolls[0]], speaker: ChatMessage.getSpeaker() });
    const li = document.querySelector(`#chat-log li[data-message-id="${message.id}"]`);
    return {
      marks: rolls.map((r) => structuredClone(r.options.rollbridge)),
      warnings: FoundryStandin.log.notifications.slice(before).filter((n) => n.level === "warn").map((n) => n.text),
      card: li?.querySelector(".rollbridge-local-dice")?.textContent ?? null,
      flag: message.getFlag("rollbridge", "localDice") ?? null,
      stats: rbE2E.api().serverDice(),
    };
  });
  assert.deepEqual(local.marks.map((m) => m.dice), ["local", "local"]);
  assert.equal(local.warnings.length, 1, JSON.stringify(local.warnings));
  assert.equal(local.card, "local dice, not the server's");
  assert.equal(local.flag, true);
  assert.deepEqual(pageErrors, []);
  process.stdout.write(`RESULT ${JSON.stringify({ served, local, timing })}\n`);
} catch (error) {
  process.stderr.write(hide(`${error?.stack ?? error}\n--- console ---\n${consoleLines.join("\n")}\n${pageErrors.join("\n")}\n`));
  process.exitCode = 1;
} finally {
  await context.close();
}
