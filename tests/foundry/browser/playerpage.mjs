// A walk with a real GM's page and a real player's page in Chromium: two pages of the
// Foundry stand-in's one world (its chat messages carried between the pages as
// Foundry's server carries them: a BroadcastChannel), each with the module's own
// client and its own connection to a real `rollbridge serve` (started by
// tests/foundry/test_foundry_playerpage_live.py). Before, the walks' player was a
// protocol client (tests/foundry/live/: the Node stand-in runs one world per process).
//
//   Gamemaster  the GM token: the writer, posts the cards, undoes
//   Ivan        his own player token and page (Tukan is his)
//
// Ivan's page asks for Tukan's attack on the guard (dice he supplies, which hit, the GM
// letting players supply them): his own request's result comes back to his page, and the card of it — posted by the GM's
// page, as a GM is in the world — is in his chat log, its seq his reply's. The GM
// undoes the attack: the GM's page flags the card, and Ivan's page draws it faded
// with the note in his language; his connection got the undo too. The GM redoes it:
// the flag is off and Ivan's card unfaded. Prints one line `RESULT {json}`; exits
// non-zero on any failure.
//
// Environment: RB_PAGE_BASE, RB_WS_URL, RB_TOKENS (JSON {gm, ivan}; never printed),
// RB_SHEETS (JSON {Tukan, "Guard A"}), RB_GENERATION (12 or 13), RB_CHROMIUM,
// RB_USER_DATA.

import assert from "node:assert/strict";
import process from "node:process";

import { failed, passed } from "./ending.mjs";
import { castTukanAndGuard, launchWorld, openWorldPage } from "./worldpages.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const SECRETS = Object.values(TOKENS);
const SHEETS = JSON.parse(env.RB_SHEETS);
const GENERATION = String(Number(env.RB_GENERATION ?? 13));
/** Dice that hit hard: many successes for the attacker, few for the guard. */
const HIT = [6, 6, 6, 6, 6, 6, 5, 5, 5, 1, 1, 1, 1, 1];
const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinIvan0001", name: "Ivan" },
];

const summary = { generation: Number(GENERATION) };
const consoleLines = [];
const pageErrors = [];
const pages = {};
const step = (name) => process.stderr.write(`playerpage: ${name}\n`);

const context = await launchWorld();
const openClient = (key, user, token) =>
  openWorldPage(context, { key, user, token, users: USERS, generation: GENERATION, consoleLines, pageErrors });

/** What `page` shows of the card of `seq`: once `ready(card)` holds (in the page). */
function cardOn(page, seq, ready) {
  return page.evaluate(async ({ seq, ready }) => {
    const check = new Function("card", `return (${ready})(card);`);
    const find = () => {
      const message = game.messages.find((m) => m.flags.rollbridge?.seq === seq && m.flags.rollbridge?.kind === "resolution");
      const li = message && document.querySelector(`#chat-log li[data-message-id="${message.id}"]`);
      const card = li?.querySelector(".rollbridge-card");
      if (!card) return null;
      const shown = {
        id: message.id, author: message.author ?? message.user, undoneAt: message.flags.rollbridge.undoneAt ?? null,
        faded: card.classList.contains("rollbridge-undone"),
        note: li.querySelector(".rollbridge-undone-note")?.textContent ?? null,
        narration: card.querySelector(".rb-narration")?.textContent ?? null,
        title: card.querySelector(".rb-title")?.textContent ?? null,
        cards: game.messages.filter((m) => m.flags.rollbridge?.seq === seq).length,
      };
      return check(shown) ? shown : null;
    };
    return rbE2E.waitFor(find, 45000, `the card of seq ${seq}`); // a bound: the machine may be busy
  }, { seq, ready: ready.toString() });
}

try {
  step("Ivan's page, then the GM's: two module clients of one world");
  pages.ivan = await openClient("ivan", "standinIvan0001", TOKENS.ivan);
  pages.gm = await openClient("gm", "standinGM000001", TOKENS.gm);
  const roles = {};
  for (const [key, page] of Object.entries(pages)) roles[key] = await page.evaluate(() => rbE2E.api().status());
  assert.deepEqual([roles.gm.role, roles.gm.writer], ["gm", true]);
  assert.deepEqual([roles.ivan.role, roles.ivan.writer], ["player", false]);

  step("the GM puts Tukan (Ivan's) and the guard on the table");
  await castTukanAndGuard(pages.gm, SHEETS);

  step("Ivan's page asks for Tukan's attack: his own request's result");
  // dice that hit (an attack that changes nothing is no change an undo takes back):
  // the GM lets players supply them; as many of the pattern as the roll takes
  await pages.gm.evaluate(() => rbE2E.api().request({ type: "settings", settings: { player_dice: true } }));
  const asked = await pages.ivan.evaluate(async (hit) => {
    for (let n = 6; n < 60; n++) {
      try {
        const event = await rbE2E.api().resolve("attack", {
          actor: rbE2E.tukan, targets: [rbE2E.guard], params: { weapon: "Hackler", rounds: 3, range: "short" },
          dice: Array.from({ length: n }, (_, i) => hit[i % hit.length]),
        });
        return { seq: event.seq, kind: event.kind, narration: event.data?.narration ?? null, changed: (event.actors ?? []).length };
      } catch (error) {
        if (!/dice/.test(String(error?.message))) throw error;
      }
    }
    throw new Error("no number of dice fitted");
  }, HIT);
  assert.equal(asked.kind, "resolution");
  assert.ok(asked.changed > 0, "the attack hit the guard");
  assert.ok(asked.narration, "the result carries its narration");
  const card = await cardOn(pages.ivan, asked.seq, (c) => c.cards >= 1);
  assert.equal(card.author, "standinGM000001", "the GM's page posted the card (a GM is in the world)");
  assert.equal(card.narration, asked.narration, "Ivan reads his own request's result");
  assert.equal(card.title, "Attack");
  assert.deepEqual([card.faded, card.note, card.cards], [false, null, 1]);
  summary.asked = { seq: asked.seq, author: card.author, title: card.title };

  step("the GM undoes it: Ivan's page draws his card faded");
  const { undo, undoes } = await pages.gm.evaluate(async () => {
    const reply = await rbE2E.api().request({ type: "undo" });
    return { undo: reply.seq, undoes: reply.event?.data?.undoes ?? reply.data?.undoes ?? null };
  });
  assert.equal(undoes, asked.seq, "the undo takes the attack back");
  const faded = await cardOn(pages.ivan, asked.seq, (c) => c.faded);
  const note = await pages.ivan.evaluate(() => game.i18n.localize("ROLLBRIDGE.Card.Undone"));
  assert.equal(faded.undoneAt, undo, "flagged with the undo's seq");
  assert.equal(faded.note, note);
  assert.equal(faded.cards, 1, "the same card, not another");
  const heard = await pages.ivan.evaluate(
    (seq) => rbE2E.waitFor(() => rbE2E.api().status().cursor?.seq >= seq, 10000, "the undo on Ivan's connection"),
    undo,
  );
  assert.ok(heard);
  const gmCard = await cardOn(pages.gm, asked.seq, (c) => c.faded);
  assert.equal(gmCard.id, faded.id);
  summary.undo = { seq: undo, note: faded.note, undoneAt: faded.undoneAt };

  step("the GM redoes it: the card is unfaded on Ivan's page");
  const redo = await pages.gm.evaluate(async () => (await rbE2E.api().request({ type: "redo" })).seq);
  const back = await cardOn(pages.ivan, asked.seq, (c) => !c.faded && c.undoneAt === null);
  assert.deepEqual([back.note, back.cards], [null, 1]);
  summary.redo = { seq: redo, faded: back.faded };

  step("approval on: Ivan's attack with too few of his own dice waits; the GM's Approve is refused");
  await pages.gm.evaluate(() => rbE2E.api().request({ type: "settings", settings: { approval: true } }));
  const held = await pages.ivan.evaluate(async (hit) => structuredClone(await rbE2E.api().resolve("attack", {
    actor: rbE2E.tukan, targets: [rbE2E.guard], params: { weapon: "Hackler", rounds: 3, range: "short" }, dice: hit.slice(0, 3),
  })), HIT);
  assert.equal(held.status, "pending", `held: ${JSON.stringify(held)}`);
  const approvalCard = pages.gm.locator(`.rollbridge-card[data-kind="approval.requested"]`).last();
  const title = (await approvalCard.locator(".rb-title").textContent()).trim();
  await approvalCard.getByRole("button", { name: "Approve", exact: true }).click();
  const refused = await pages.gm.evaluate(() => rbE2E.waitFor(
    () => FoundryStandin.log.notifications.find((n) => n.level === "error"), 10000, "the GM told"));
  await approvalCard.getByRole("button", { name: "Reject", exact: true }).waitFor();
  summary.ownDice = { title, refused: refused.text };

  await passed({ pages, secrets: SECRETS, consoleLines, pageErrors, summary });
} catch (error) {
  // what each page's world holds: its connection, the last hooks run, the chat messages
  for (const [key, page] of Object.entries(pages)) {
    const held = await page.evaluate(() => ({
      activeGM: game.users.activeGM?.id ?? null,
      hooks: FoundryStandin.log.hooks.slice(-25),
      status: (({ status, role, writer, cursor }) => ({ status, role, writer, cursor }))(rbE2E.api().status()),
      messages: game.messages.contents.map((m) => ({ id: m.id, author: m.author ?? m.user, flags: m.flags.rollbridge ?? null,
        shown: Boolean(document.querySelector(`#chat-log li[data-message-id="${m.id}"] .rollbridge-card`)) })),
    })).catch((e) => String(e));
    consoleLines.push(`${key} holds: ${JSON.stringify(held).replace(/"rolls":\[.*?\]\}\],/g, "").slice(0, 3000)}`);
  }
  failed(error, { secrets: SECRETS, consoleLines, pageErrors });
} finally {
  await context.close();
}
