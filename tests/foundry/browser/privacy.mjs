// The browser test of whose view the stored chat card is in: three Foundry clients
// of one world (three pages of one Chromium, on the stand-in page, whose chat
// messages travel between the pages as Foundry's server would carry them) and a
// real `rollbridge serve` (started by tests/foundry/test_foundry_browser.py), all
// in English, the language of the writer:
//
//   Gamemaster  the GM token: the writer, posts the cards
//   Ivan        his own player token and connection (Tukan is his)
//   Paul        no token, no connection
//
// Tukan shoots a guard (an NPC: Body 5, ballistic armour 8). The card is public:
// the stored message (its HTML, its Rolls, its flags) is the players' view the
// GM's event carries, exactly what Ivan's own connection received, and holds none
// of the guard's numbers; Ivan and Paul read it as stored; the GM's own client
// draws it again from the GM's event and reads the full card. The same attack as
// a blind roll is a GM-only card: whispered to the GMs, it keeps the GM's view.
// Then Ivan rolls 2d6 as a GM, a self and a blind roll (issue 15, item 3): his
// client tells the GM's its mode (a v13 query across the pages; v12 the module's
// socket), and the GM's card is read by the GM and Ivan, by Ivan alone, and by
// the GM alone; Paul reads none. Last, Ivan's own GM roll of an attack on the
// guard (the GM lets players supply dice first, so it is the same hit): with a
// server whose Foundry dialect takes `requester_sees` (RB_REQUESTER_SEES=1), the
// reply to Ivan carries the players' view and Ivan's client posts that card,
// whispered to him alone, while the GM's card keeps the GM's view for the GMs
// alone; with an older one, the GM's card is blind and Ivan reads nothing.
// Either way none of the guard's numbers reaches Ivan's page: not one frame his
// connection received, not his chat log (a GM's or self roll with
// requester_sees: the GM's card of it is never the roller's to read).
// Prints one line `RESULT {json}`; exits non-zero on any failure.
//
// Environment: RB_PAGE_BASE (the stand-in page's URL without its query), RB_WS_URL,
// RB_TOKENS (JSON {gm, ivan}; never printed), RB_SHEETS (JSON {Tukan, Guard}),
// RB_DETAIL (JSON: what only the GM may read of the attack), RB_DICE (JSON),
// RB_GENERATION (12 or 13), RB_REQUESTER_SEES ("1": the server takes it),
// RB_CHROMIUM, RB_USER_DATA.

import assert from "node:assert/strict";
import process from "node:process";

import { chromium } from "playwright-core";

import { failed, passed } from "./ending.mjs";
import { ARGS } from "./launch.mjs";

const env = process.env;
const TOKENS = JSON.parse(env.RB_TOKENS);
const SECRETS = Object.values(TOKENS);
const sheets = JSON.parse(env.RB_SHEETS);
const DETAIL = JSON.parse(env.RB_DETAIL);
const DICE = JSON.parse(env.RB_DICE);
const GENERATION = Number(env.RB_GENERATION ?? 13);
const REQUESTER_SEES = env.RB_REQUESTER_SEES === "1";

const USERS = [
  { _id: "standinGM000001", name: "Gamemaster", isGM: true },
  { _id: "standinIvan0001", name: "Ivan" },
  { _id: "standinPaul0001", name: "Paul" },
];
const CLIENTS = [
  { key: "gm", user: "standinGM000001", token: TOKENS.gm },
  { key: "ivan", user: "standinIvan0001", token: TOKENS.ivan },
  { key: "paul", user: "standinPaul0001", token: null },
];

const summary = { generation: GENERATION };
const consoleLines = [];
// every frame each page's connections received (Ivan's must hold none of the guard's numbers)
const frames = { gm: [], ivan: [], paul: [] };
const pageErrors = [];
const step = (name) => process.stderr.write(`privacy: ${name}\n`);
const leaks = (text) => DETAIL.filter((d) => String(text).includes(d));

const context = await chromium.launchPersistentContext(env.RB_USER_DATA, {
  executablePath: env.RB_CHROMIUM, headless: true, args: ARGS, viewport: { width: 900, height: 1200 },
});
context.setDefaultTimeout(30_000);

async function openClient({ key, user, token }) {
  const page = await context.newPage();
  page.on("console", (m) => consoleLines.push(`${key}: ${m.text()}`));
  page.on("pageerror", (e) => pageErrors.push(`${key}: ${e}`));
  page.on("websocket", (ws) => ws.on("framereceived", ({ payload }) => frames[key].push(String(payload))));
  await page.addInitScript((t) => { window.__RB_E2E__ = t ? { token: t } : {}; }, token);
  const query = new URLSearchParams({
    ws: env.RB_WS_URL, generation: String(GENERATION), lang: "en", user, users: JSON.stringify(USERS),
  });
  await page.goto(`${env.RB_PAGE_BASE}?${query}`);
  await page.waitForFunction(() => window.rbE2E?.ready === true);
  if (token) {
    await page.evaluate(() => rbE2E.waitFor(() => rbE2E.api().status().status === "connected", 20000, "connected"));
  }
  return page;
}

// the GM resolves the attack; the card's message, and the GM's own event of it
function resolve(page, rollMode) {
  return page.evaluate(async ({ dice, rollMode }) => {
    const api = rbE2E.api();
    const before = FoundryStandin.log.messages.length;
    const reply = await api.resolve("attack", {
      actor: rbE2E.tukan, targets: [rbE2E.guard],
      params: { weapon: "Hackler", rounds: 3, range: "short" }, dice, rollMode,
    });
    await rbE2E.waitFor(() => FoundryStandin.log.messages.length > before, 10000, "the card");
    const message = FoundryStandin.log.messages.at(-1);
    const f = message.flags.rollbridge;
    const own = api.cachedEvent(f.table, f.epoch, f.seq);
    return {
      id: message.id, table: f.table, epoch: f.epoch, seq: f.seq, replySeq: reply.seq,
      flags: structuredClone(f), whisper: message.whisper, blind: message.blind,
      own: own ? structuredClone(own) : null,
      dice3d: FoundryStandin.log.dice3d.filter((c) => c.message === message.id).map((c) => structuredClone(c)),
      showForRoll: FoundryStandin.log.showForRoll.map((c) => structuredClone(c)),
      rolls: (message.rolls ?? []).length,
    };
  }, { dice: DICE, rollMode });
}

// what one client shows of one message, and what its own connection received
function seen(page, { id, table, epoch, seq }) {
  return page.evaluate(async ({ id, table, epoch, seq }) => {
    await rbE2E.waitFor(() => game.messages.get(id), 10000, `message ${id}`);
    const message = game.messages.get(id);
    const li = document.querySelector(`#chat-log li[data-message-id="${id}"]`);
    const card = li?.querySelector(".rollbridge-card") ?? null;
    const own = rbE2E.api().cachedEvent(table, epoch, seq);
    return {
      stored: message.content,
      storedFlags: structuredClone(message.flags.rollbridge),
      storedRolls: (message.rolls ?? []).map((r) => JSON.stringify(r.toJSON?.() ?? r)),
      rendered: Boolean(li),
      shown: li?.querySelector(".message-content")?.innerHTML ?? null,
      cardView: card?.dataset.view ?? null,
      cardLang: card?.dataset.lang ?? null,
      own: own ? structuredClone(own) : null,
    };
  }, { id, table, epoch, seq });
}

// the cards of the event `seq` (`count` of them), each with what every page reads of it
async function cardsOf(seq, count) {
  const pages = openPages;
  const ids = await pages.gm.evaluate(async ({ seq, count }) => {
    const of = () => game.messages.filter((m) => m.flags.rollbridge?.seq === seq);
    await rbE2E.waitFor(() => of().length >= count, 10000, `${count} cards of seq ${seq}`);
    await new Promise((r) => setTimeout(r, 500)); // and no more come
    return of().map((m) => m.id);
  }, { seq, count });
  assert.equal(ids.length, count, `the cards of seq ${seq}`);
  const cards = [];
  for (const id of ids) {
    const card = { id, readers: [], shown: {} };
    for (const [key, page] of Object.entries(pages)) {
      const v = await page.evaluate(async (messageId) => {
        await rbE2E.waitFor(() => game.messages.get(messageId), 10000, "the message");
        const m = game.messages.get(messageId);
        const li = document.querySelector(`#chat-log li[data-message-id="${messageId}"]`);
        const f = m.flags.rollbridge;
        return {
          content: Boolean(li?.querySelector(".rollbridge-card")), shown: li?.querySelector(".message-content")?.innerHTML ?? null,
          author: m.author, stored: m.content,
          flags: { mode: f.rollMode, view: f.view, secret: f.secret, table: f.table, epoch: f.epoch, seq: f.seq },
        };
      }, id);
      if (v.content) card.readers.push(key);
      card.shown[key] = v.shown;
      Object.assign(card, { author: v.author, stored: v.stored, ...v.flags });
    }
    card.readers.sort();
    cards.push(card);
  }
  return cards;
}
const openPages = {};

try {
  step("three clients of one world: the players first, then the GM");
  const pages = openPages;
  for (const client of CLIENTS.slice(1)) pages[client.key] = await openClient(client);
  pages.gm = await openClient(CLIENTS[0]);
  const roles = {};
  for (const [key, page] of Object.entries(pages)) roles[key] = await page.evaluate(() => rbE2E.api().status());
  assert.equal(roles.gm.role, "gm");
  assert.equal(roles.gm.writer, true);
  assert.equal(roles.ivan.role, "player");
  assert.equal(roles.paul.status, "off");

  step("the GM puts Tukan (Ivan's) and the guard (an NPC) on the table");
  await pages.gm.evaluate(async (s) => {
    const api = rbE2E.api();
    await api.addActor(rbE2E.tukan, s.Tukan, { controllers: ["ivan"] });
    await api.addActor(rbE2E.guard, s.Guard);
  }, sheets);

  step("a public attack on the guard");
  const posted = await resolve(pages.gm, "publicroll");
  assert.equal(posted.seq, posted.replySeq);
  const gmEvent = posted.own;
  assert.ok(gmEvent?.players, "the GM's event carries the players' view");
  // the GM's view holds the guard's numbers (else this test proves nothing)
  assert.deepEqual(leaks(JSON.stringify(gmEvent.data)), DETAIL);
  assert.deepEqual(leaks(JSON.stringify(gmEvent.players)), []);

  const views = {};
  for (const key of ["gm", "ivan", "paul"]) views[key] = await seen(pages[key], posted);
  const stored = views.gm;
  // the stored message: the players' view, its HTML, flags and Rolls
  assert.equal(stored.storedFlags.view, "players");
  assert.equal(stored.storedFlags.secret, false);
  assert.deepEqual(posted.whisper, []);
  assert.deepEqual(leaks(stored.stored), [], "the stored HTML holds none of the guard's numbers");
  assert.ok(!stored.stored.includes("data-track="), "no NPC boxes in the stored card");
  assert.deepEqual(leaks(JSON.stringify(stored.storedFlags)), []);
  assert.deepEqual(stored.storedFlags.rolls, gmEvent.players.foundry.rolls);
  assert.notDeepEqual(gmEvent.foundry.rolls, gmEvent.players.foundry.rolls, "the GM's Rolls show the hidden TN");
  const expected = await pages.gm.evaluate(async (players) => {
    const { renderCard } = await import("/adapters/foundry/module/scripts/core/card.mjs");
    // titled by sr2's label of the action (the welcome's ruleset.actions)
    return renderCard(players, { speakerName: "Tukan", showWho: false, i18n: game.i18n, actions: { attack: { label: "Attack" } } });
  }, gmEvent.players);
  assert.equal(stored.stored, expected, "the stored card is the players' view drawn");
  // Dice So Nice animated the message's own rolls (the players' view), each term in
  // Foundry's order (every first roll, then each round of explosions)
  const foundryOrder = (chains) => {
    const out = [];
    for (let round = 0; round < Math.max(0, ...chains.map((c) => c.length)); round++) {
      for (const chain of chains) if (round < chain.length) out.push(chain[round]);
    }
    return out;
  };
  assert.equal(posted.dice3d.length, 1);
  assert.deepEqual(posted.dice3d[0].rolls.map((r) => r.results), gmEvent.players.data.dice.map((g) => foundryOrder(g.dice.map((d) => d.rolls))));
  assert.equal(posted.showForRoll.length, 0, "no separate showForRoll for a public card");
  for (const key of ["ivan", "paul"]) {
    assert.equal(views[key].stored, stored.stored, `${key}: one stored message`);
    assert.equal(views[key].shown, stored.stored, `${key} reads the stored card`);
    assert.equal(views[key].cardView, null, `${key}: not drawn again`);
    // the message carries its Rolls: the players' view's, holding none of the guard's numbers
    assert.deepEqual(views[key].storedRolls.map((r) => JSON.parse(r).terms.length), gmEvent.players.foundry.rolls.map((r) => r.terms.length));
    assert.deepEqual(leaks(views[key].storedRolls.join("")), [], `${key}: no hidden number in the Rolls`);
  }
  // Ivan's connection received exactly the players' view the GM's event carried
  assert.deepEqual(views.ivan.own, gmEvent.players);
  assert.equal(views.paul.own, null);
  // the GM's own client draws the card again from the GM's event: the full card
  assert.equal(views.gm.cardView, "gm");
  assert.deepEqual(leaks(views.gm.shown), DETAIL, "the GM reads the guard's numbers");
  assert.ok(views.gm.shown.includes("data-track="), "and its boxes");
  summary.public = { seq: posted.seq, view: stored.storedFlags.view, gmCard: views.gm.cardView };

  step("the guard's panel on each client, the guard as Foundry hands it to every page");
  const guardFlags = await pages.gm.evaluate(async (seq) => {
    await rbE2E.waitFor(() => rbE2E.guard.flags.rollbridge?.seq === seq, 10000, "the guard's flags");
    return structuredClone(rbE2E.guard.flags.rollbridge);
  }, posted.seq);
  // the flags every client receives: the players' view the GM's event carried, no boxes
  const playersGuard = gmEvent.players.actors.find((a) => a.id === guardFlags.actorId);
  assert.deepEqual(guardFlags.common, playersGuard.common);
  assert.deepEqual([guardFlags.view, guardFlags.limited, guardFlags.common.tracks], ["players", true, []]);
  const gmGuard = gmEvent.actors.find((a) => a.id === guardFlags.actorId);
  assert.ok(gmGuard.common.tracks.length, "the GM's view has the guard's boxes (else this proves nothing)");
  const panels = {};
  for (const [key, page] of Object.entries(pages)) {
    panels[key] = await page.evaluate(({ flags, generation }) => {
      // the stand-in's pages share no actors: the players' pages get the guard as the
      // GM's client left it, as Foundry's server would send it
      if (!game.user.isGM) rbE2E.guard._source.flags.rollbridge = structuredClone(flags);
      const root = document.createElement("div");
      root.innerHTML = '<div class="col right"></div>';
      Hooks.callAll("renderTokenHUD", { object: { actor: rbE2E.guard } }, generation >= 13 ? root : [root], {});
      const panel = root.querySelector(".rollbridge-hud");
      return { html: panel?.innerHTML ?? "", tracks: [...root.querySelectorAll(".rb-track")].map((t) => t.dataset.track) };
    }, { flags: guardFlags, generation: GENERATION });
  }
  // the GM draws its connection's view, the boxes; Ivan his connection's (the players'
  // view), Paul (no connection) the flags: neither any of the guard's boxes
  assert.deepEqual(panels.gm.tracks, gmGuard.common.tracks.map((t) => t.key));
  for (const key of ["ivan", "paul"]) {
    assert.deepEqual(panels[key].tracks, [], `${key}: none of the guard's boxes`);
    assert.ok(panels[key].html.includes(playersGuard.common.conditions[0]), `${key}: the guard's wound level`);
  }
  summary.panels = { gm: panels.gm.tracks, ivan: panels.ivan.tracks, paul: panels.paul.tracks };

  step("the same attack as a blind roll: a GM-only card");
  const secret = await resolve(pages.gm, "blindroll");
  assert.equal(secret.flags.secret, true);
  assert.equal(secret.flags.view, "gm");
  assert.equal(secret.blind, true);
  assert.deepEqual(secret.whisper, ["standinGM000001"]);
  // a whispered card carries no Rolls (a roll message reaches every client as "???");
  // each client whose user reads it rolls its dice there with Dice So Nice's
  // showForRoll, for this message and nowhere else (synchronize false), and hides the
  // card until they land, as Dice So Nice does for a public card (foundry/dice.mjs):
  // the GM's page; the players' pages, which do not read it, roll nothing (below)
  assert.equal(secret.rolls, 0);
  const onGM = secret.showForRoll.at(-1);
  assert.deepEqual([onGM?.messageID, onGM?.user, onGM?.synchronize, onGM?.users, onGM?.blind], [secret.id, "standinGM000001", false, null, false]);
  const secretSeen = await seen(pages.gm, secret);
  assert.ok(leaks(secretSeen.stored).length > 0, "a GM-only card may keep the GM's view");
  for (const key of ["ivan", "paul"]) {
    const v = await pages[key].evaluate(async ({ id, table, epoch, seq }) => {
      await rbE2E.waitFor(() => game.messages.get(id), 10000, "the secret message");
      const api = rbE2E.api();
      if (api.status().status === "connected") {
        await rbE2E.waitFor(() => (api.status().cursor?.seq ?? 0) >= seq, 10000, "the hidden event");
      }
      return {
        inLog: Boolean(document.querySelector(`#chat-log li[data-message-id="${id}"]`)),
        own: api.cachedEvent(table, epoch, seq),
        dice: FoundryStandin.log.showForRoll.filter((c) => c.messageID === id).length,
      };
    }, secret);
    assert.deepEqual(v, { inLog: false, own: null, dice: 0 }, key);
  }
  summary.secret = { seq: secret.seq, view: secret.flags.view };

  step("Ivan's own secret rolls: GM, self and blind, with Foundry's meaning");
  // the player's client tells the GM's its mode (v13: a query; v12: the module's socket)
  const modes = {};
  for (const mode of ["gmroll", "selfroll", "blindroll"]) {
    const reply = await pages.ivan.evaluate(async (rollMode) => rbE2E.api().roll("2d6", { rollMode, flavor: rollMode }), mode);
    const own = REQUESTER_SEES && mode !== "blindroll";
    // the server keeps it from the players' connections: a secret reply, or (a GM or
    // self roll, requester_sees) the players' view its reply carried, the API's answer
    if (own) assert.equal(reply.kind, "roll", JSON.stringify(reply));
    else assert.equal(reply.status, "secret", "the server keeps it from the players' connections");
    modes[mode] = await cardsOf(reply.seq, own ? { gmroll: 2, selfroll: 1 }[mode] : 1);
  }
  const readers = (mode) => [...new Set(modes[mode].flatMap((c) => c.readers))].sort();
  assert.deepEqual(readers("gmroll"), ["gm", "ivan"], JSON.stringify(modes.gmroll));
  assert.deepEqual(readers("selfroll"), ["ivan"], JSON.stringify(modes.selfroll));
  assert.deepEqual(readers("blindroll"), ["gm"], JSON.stringify(modes.blindroll));
  for (const mode of Object.keys(modes)) assert.deepEqual(modes[mode].map((c) => c.mode), modes[mode].map(() => mode));
  if (REQUESTER_SEES) {
    // Ivan's own card, from the players' view his reply carried; the GM's, for the GMs
    const byAuthor = (mode, user) => modes[mode].filter((c) => c.author === user);
    for (const mode of ["gmroll", "selfroll"]) {
      assert.equal(byAuthor(mode, "standinIvan0001").length, 1, `${mode}: one card of Ivan's`);
      assert.deepEqual(byAuthor(mode, "standinIvan0001")[0].readers, ["ivan"]);
      assert.equal(byAuthor(mode, "standinIvan0001")[0].view, "players");
    }
    assert.deepEqual(byAuthor("gmroll", "standinGM000001").map((c) => c.readers), [["gm"]], "the GM's card is the GMs'");
  } else {
    assert.equal(modes.gmroll[0].author, "standinIvan0001", "the card is the roller's");
  }
  summary.modes = Object.fromEntries(Object.keys(modes).map((m) => [m, readers(m)]));

  step("Ivan's own GM roll of an attack on the guard");
  // the GM lets players supply dice, so that Ivan's attack is the same hit (the
  // guard's numbers are in the GM's view)
  await pages.gm.evaluate(() => rbE2E.api().request({ type: "settings", settings: { player_dice: true } }));
  const answer = await pages.ivan.evaluate(async (dice) => structuredClone(await rbE2E.api().resolve("attack", {
    actor: rbE2E.tukan, targets: [rbE2E.guard], params: { weapon: "Hackler", rounds: 3, range: "short" }, dice, rollMode: "gmroll",
  })), DICE);
  const attackCards = await cardsOf(answer.seq, REQUESTER_SEES ? 2 : 1);
  const gmCard = attackCards.find((c) => c.author === "standinGM000001");
  assert.ok(gmCard, JSON.stringify(attackCards));
  assert.equal(gmCard.view, "gm");
  assert.deepEqual(gmCard.readers, ["gm"], "the GM's view is the GMs' alone");
  assert.ok(leaks(gmCard.shown.gm).length > 0, "the GM's card holds the guard's numbers (else this proves nothing)");
  const gmOwn = await pages.gm.evaluate(({ table, epoch, seq }) => structuredClone(rbE2E.api().cachedEvent(table, epoch, seq)), gmCard);
  assert.equal(gmOwn?.gm_only, true);
  assert.ok(leaks(JSON.stringify(gmOwn.data)).length > 0);
  if (REQUESTER_SEES) {
    // the reply carried the players' view: what the API answered Ivan
    assert.equal(answer.kind, "resolution");
    assert.ok(!answer.gm_only);
    assert.deepEqual(leaks(JSON.stringify(answer)), [], "the players' view holds none of the guard's numbers");
    assert.equal(answer.data.narration.length > 0, true);
    const ivanCard = attackCards.find((c) => c.author === "standinIvan0001");
    assert.ok(ivanCard, JSON.stringify(attackCards));
    assert.deepEqual(ivanCard.readers, ["ivan"], "whispered to the roller alone");
    assert.equal(ivanCard.view, "players");
    assert.equal(ivanCard.secret, true);
    assert.deepEqual(leaks(ivanCard.stored), []);
    const expectedCard = await pages.ivan.evaluate(async (players) => {
      const { renderCard } = await import("/adapters/foundry/module/scripts/core/card.mjs");
      return renderCard(players, { speakerName: "Tukan", showWho: false, i18n: game.i18n, actions: { attack: { label: "Attack" } } });
    }, answer);
    assert.equal(ivanCard.stored, expectedCard, "Ivan's card is the players' view his reply carried, drawn");
    assert.equal(ivanCard.shown.ivan, expectedCard, "Ivan reads it as stored");
    assert.equal(ivanCard.seq, gmCard.seq);
  } else {
    assert.equal(answer.status, "secret");
  }
  const ivanLog = await pages.ivan.evaluate(() => document.getElementById("chat-log")?.innerHTML ?? "");
  assert.deepEqual(leaks(ivanLog), [], "Ivan's chat log shows none of the guard's numbers");
  summary.gmAttack = {
    requesterSees: REQUESTER_SEES, cards: attackCards.length,
    readers: Object.fromEntries(attackCards.map((c) => [c.author, c.readers])),
  };

  // not one frame Ivan's connection received held the guard's numbers
  assert.ok(frames.ivan.length > 0, "Ivan's frames were seen");
  assert.deepEqual(leaks(frames.ivan.join("\n")), [], "a frame to Ivan held the guard's numbers");
  assert.ok(leaks(frames.gm.join("\n")).length > 0, "the GM's frames did");

  await passed({ pages: pages, secrets: SECRETS, consoleLines, pageErrors, summary });
} catch (error) {
  failed(error, { secrets: SECRETS, consoleLines, pageErrors });
} finally {
  await context.close();
}
