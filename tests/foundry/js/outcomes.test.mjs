// How an approval card's request went, as only a GM can have written it: the GM's
// record, the hidden world setting `rollbridge.outcomes` the active GM's client
// writes as the server's events settle requests (core/outcomes.mjs), which a player
// may not write. Before it, the outcome and reason were flags on the approval card
// itself, which a player may write on their own card (their GM roll's): a player
// who wrote *Approved* on a request the GM rejected had the other players and a
// reloading GM read it, and the player's own card lost the GM's reason on a reload.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { KEPT_OUTCOMES, KEPT_TABLES, keptOutcome, withOutcome } from "../../../adapters/foundry/module/scripts/core/outcomes.mjs";
import { REASON_MAX } from "../../../adapters/foundry/module/scripts/core/rejection.mjs";
import { addButtons } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { drawMessages } from "./elements.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { bootModule, registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const GM = "standinGM000001";
const OTHER_GM = "BstandinGM00002";
const PLAYER = "standinPlr00001";
const USERS = [
  { _id: GM, name: "Gamemaster", isGM: true },
  { _id: OTHER_GM, name: "Second GM", isGM: true, active: false },
  { _id: PLAYER, name: "Player" },
];

let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

test("the record: each table's requests by epoch, the newest kept, a rejection's reason only as the server sends one", () => {
  const at = { table: "t1", epoch: 1, pending: "p1" };
  let record = withOutcome({}, { ...at, outcome: "rejected", reason: "too <b>late</b>" });
  assert.deepEqual(record, { tables: [{ table: "t1", settled: { "1:p1": { outcome: "rejected", reason: "too <b>late</b>" } } }] });
  assert.deepEqual(keptOutcome(record, at), { outcome: "rejected", reason: "too <b>late</b>" });
  assert.equal(withOutcome(record, { ...at, outcome: "rejected", reason: "too <b>late</b>" }), null, "said already: no write");
  assert.equal(keptOutcome(record, { ...at, epoch: 2 }), null, "another epoch's p1 is another request");
  assert.equal(keptOutcome(record, { ...at, table: "t0" }), null, "another table's too");
  record = withOutcome(record, { table: "42", epoch: 3, pending: "p1", outcome: "approved" });
  assert.deepEqual(keptOutcome(record, { table: "42", epoch: 3, pending: "p1" }), { outcome: "approved", reason: null });
  record = withOutcome(record, { ...at, epoch: 2, pending: "p1", outcome: "approved" });
  assert.deepEqual([keptOutcome(record, at)?.outcome, keptOutcome(record, { ...at, epoch: 2 })?.outcome], ["rejected", "approved"],
    "a new epoch: the earlier one's cards still say how theirs went");
  assert.deepEqual(record.tables.map((t) => t.table), ["42", "t1"], "the table written last, last");
  for (let i = 0; i < KEPT_OUTCOMES; i++) record = withOutcome(record, { ...at, epoch: 2, pending: `q${i}`, outcome: "approved" });
  assert.equal(Object.keys(record.tables.at(-1).settled).length, KEPT_OUTCOMES, "bounded");
  assert.equal(keptOutcome(record, at), null, "the oldest went");
  assert.ok(keptOutcome(record, { ...at, epoch: 2, pending: `q${KEPT_OUTCOMES - 1}` }));
  for (let i = 0; i < KEPT_TABLES + 3; i++) record = withOutcome(record, { table: `t${100 + i}`, epoch: 1, pending: "p1", outcome: "approved" });
  assert.equal(record.tables.length, KEPT_TABLES, "so are the tables");
  assert.equal(keptOutcome(record, { table: "42", epoch: 3, pending: "p1" }), null, "the one written longest ago went");
  // what the module never writes is not read
  const odd = { tables: [{ table: "t1", settled: {
    "1:a": { outcome: "granted" }, "1:b": { outcome: "rejected", reason: "y".repeat(REASON_MAX + 1) }, "1:c": { outcome: "rejected", reason: "not \u202enow" },
    "1:d": { outcome: "rejected", reason: "   " }, "1:e": { outcome: "rejected", reason: 7 }, "1:f": { outcome: "approved", reason: "made up" },
  } }] };
  assert.deepEqual(["a", "b", "c", "d", "e", "f", "toString"].map((pending) => keptOutcome(odd, { table: "t1", epoch: 1, pending })), [
    null, { outcome: "rejected", reason: null }, { outcome: "rejected", reason: null }, { outcome: "rejected", reason: null },
    { outcome: "rejected", reason: null }, { outcome: "approved", reason: null }, null,
  ]);
  for (const junk of [null, "x", 7, [], { tables: null }, { tables: [null, 7, { table: 5 }] }, { tables: [{ table: "t1", settled: null }] }]) {
    assert.equal(keptOutcome(junk, at), null);
    assert.deepEqual(withOutcome(junk, { ...at, outcome: "approved" }).tables.at(-1), { table: "t1", settled: { "1:p1": { outcome: "approved" } } });
  }
});

test("the record stays small enough for a phone: at most 16 KiB of JSON, the oldest reasons going first, the newest kept whole", () => {
  // a night's worst: every request rejected with the longest reason, in Cyrillic (two
  // bytes a letter), at a table whose epoch is a time in milliseconds, after another
  // table the world used before
  const reason = "ж".repeat(REASON_MAX);
  const epoch = 1733500000000;
  let record = {};
  const bytes = () => Buffer.byteLength(JSON.stringify(record), "utf8");
  for (let i = 0; i < 300; i++) {
    const next = withOutcome(record, { table: i < 150 ? "friday-run-3fa2c1d0" : "saturday-run-9e1b77aa", epoch, pending: `p${100000 + i}`, outcome: "rejected", reason });
    record = next ?? record;
    assert.ok(bytes() <= 16 * 1024, `the record after request ${i} takes ${bytes()} bytes`);
  }
  const at = { table: "saturday-run-9e1b77aa", epoch };
  assert.deepEqual(keptOutcome(record, { ...at, pending: "p100299" }), { outcome: "rejected", reason }, "the newest whole");
  assert.equal(keptOutcome(record, { ...at, pending: "p100200" })?.outcome, "rejected", "an older one keeps its outcome");
  assert.equal(keptOutcome(record, { ...at, pending: "p100200" })?.reason, null, "without its reason");
  assert.ok(keptOutcome(record, { ...at, pending: `p${100300 - KEPT_OUTCOMES}` }), "the newest requests of the table all kept");
  // without reasons: every request kept, as the counts bound it
  record = {};
  for (let i = 0; i < 300; i++) record = withOutcome(record, { table: `table-${i % 2}`, epoch, pending: `p${100000 + i}`, outcome: "approved" });
  assert.equal(record.tables.map((t) => Object.keys(t.settled).length).reduce((a, b) => a + b), KEPT_TABLES * KEPT_OUTCOMES);
  assert.ok(bytes() <= 16 * 1024);
});

test("a table listed twice in the record (a GM's macro): read and written by its entry written last, nothing lost", () => {
  const at = { table: "t1", epoch: 1, pending: "p1" };
  let record = { tables: [{ table: "t1", settled: { "1:p0": { outcome: "rejected" } } }, { table: "t1", settled: {} }, { table: "t0", settled: {} }] };
  assert.equal(keptOutcome(record, { ...at, pending: "p0" }), null, "the entry written last says nothing of p0");
  record = withOutcome(record, { ...at, outcome: "approved" });
  assert.deepEqual(keptOutcome(record, at), { outcome: "approved", reason: null }, "what was just kept is read");
  record = withOutcome(record, { ...at, pending: "p2", outcome: "rejected", reason: "no" });
  assert.deepEqual([keptOutcome(record, at)?.outcome, keptOutcome(record, { ...at, pending: "p2" })?.reason], ["approved", "no"], "nor lost by the next write");
  assert.deepEqual(record.tables.map((t) => t.table), ["t0", "t1"], "each table once");
  // more tables than the module keeps: only the last KEPT_TABLES are read
  const many = { tables: Array.from({ length: KEPT_TABLES + 1 }, (_, i) => ({ table: `t${i}`, settled: { "1:p1": { outcome: "approved" } } })) };
  assert.equal(keptOutcome(many, { ...at, table: "t0" }), null);
  assert.ok(keptOutcome(many, { ...at, table: `t${KEPT_TABLES}` }));
});

/** An approval card of request `pending` (#seq), posted by `author`, with `extra` flags. */
const approvalCard = (seq, pending, author, extra = {}) => ({
  content: `<div class="rollbridge-card rb-approval" data-kind="approval.requested" data-seq="${seq}" data-epoch="1">alice asks for a roll</div>`,
  whisper: [GM, OTHER_GM, PLAYER], author,
  flags: { rollbridge: { table: "t1", epoch: 1, seq, kind: "approval.requested", pending, secret: true, view: "gm", ...extra } },
});

/** What each card shows: its approve and reject buttons, its line, and the GM's reason (its HTML). */
const shown = (messages, elements) => Object.fromEntries(Object.entries(messages).map(([name, message]) => {
  const html = elements.get(message.id).card.shown;
  const buttons = ["approve", "reject"].filter((a) => html.includes(`data-rollbridge-action="${a}"`)).join(" ");
  const line = /data-settled="(\w+)">([^<]*)</.exec(html);
  const reason = /<span class="rb-reason">\(reason: (.*?)\)<\/span>/.exec(html);
  return [name, [buttons, line ? line[2].trim() : "", reason ? reason[1] : ""].join("|")];
}));

/** A page of `user` whose world keeps the GM's record `outcomes` (written last by `by`,
 * else the GM; `permissions` the world's core.permissions), its chat log drawn by the
 * module's buttons. */
async function page(generation, user, outcomes, { by = GM, permissions = null, users = USERS } = {}) {
  client?.stop();
  const settings = { "rollbridge.outcomes": outcomes, ...(permissions ? { "core.permissions": permissions } : {}) };
  await world({ users, user, generation, settings, settingsBy: { "rollbridge.outcomes": by } });
  await registerModuleSettings();
  client = new FoundryClient();
  const elements = drawMessages(generation, (message, html) => addButtons(message, html, client));
  return elements;
}

const post = (data) => ChatMessage._fromWorld({ data, user: data.author });

/** Start the page's client and welcome it as the GM: its table at `seq`, the requests
 * `pending` waiting. Returns its socket. */
function welcomeGM(seq, pending) {
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq, locale: "en", table: { id: "t1", actors: [], pending } });
  return ws;
}

for (const generation of [12, 13]) {
  test(`v${generation}: what a player wrote on their own card is not its outcome: a GM's reload reads the GM's record`, async () => {
    // p7 approved (the GM's record says so), p8 settled while no GM's client took its event
    const elements = await page(generation, GM, { tables: [{ table: "t1", settled: { "1:p7": { outcome: "approved" } } }] });
    const cards = {
      // the player's GM roll: their own card, on which they wrote the opposite of what the GM did
      p7: await post(approvalCard(7, "p7", PLAYER, { outcome: "rejected", reason: "the GM said <b>no</b>" })),
      p8: await post(approvalCard(8, "p8", PLAYER, { outcome: "approved" })),
      // a GM's card of an earlier version: the outcome its GM's client wrote on it still reads
      p9: await post(approvalCard(9, "p9", GM, { outcome: "rejected", reason: "old words" })),
    };
    assert.deepEqual(shown(cards, elements), { p7: "|Approved|", p8: "||", p9: "|Rejected|“old words”" }, "before the welcome");
    welcomeGM(9, []);
    await settle(client);
    assert.deepEqual(shown(cards, elements), { p7: "|Approved|", p8: "|No longer waiting for approval|", p9: "|Rejected|“old words”" }, "after it");
  });

  test(`v${generation}: a player who reloads reads the GM's reason on their own card, as text, from the GM's record`, async () => {
    const reason = "not in this <b>scene</b> & @UUID[x]";
    const elements = await page(generation, PLAYER, { tables: [{ table: "t1", settled: { "1:p7": { outcome: "rejected", reason }, "1:p8": { outcome: "rejected", reason: "\u202eno" } } }] });
    const cards = { p7: await post(approvalCard(7, "p7", PLAYER)), p8: await post(approvalCard(8, "p8", PLAYER)) };
    assert.deepEqual(shown(cards, elements), {
      p7: "|Rejected|“not in this &lt;b&gt;scene&lt;/b&gt; &amp; @<span></span>UUID[<span></span>x]”",
      p8: "|Rejected|", // a reason the server never sends (a bidirectional control): none
    });
  });

  test(`v${generation}: the GM's client keeps a settled request in the GM's record; a player cannot write it`, async () => {
    await page(generation, GM, {});
    const theirs = await post(approvalCard(7, "p7", PLAYER));
    const ws = welcomeGM(7, [{ pending: "p7" }]);
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 8, kind: "approval.rejected", data: { pending: "p7", reason: " too late " }, actors: [] });
    await settle(client);
    assert.deepEqual(game.settings.get("rollbridge", "outcomes"), { tables: [{ table: "t1", settled: { "1:p7": { outcome: "rejected", reason: " too late " } } }] });
    assert.equal(theirs.flags.rollbridge.outcome, undefined, "nothing written on the player's card");
    // the player's page: Foundry refuses a player's write of a world setting
    const record = game.settings.get("rollbridge", "outcomes");
    await page(generation, PLAYER, record);
    await assert.rejects(game.settings.set("rollbridge", "outcomes", { tables: [{ table: "t1", settled: { "1:p7": { outcome: "approved" } } }] }), /lacks permission/);
    assert.deepEqual(game.settings.get("rollbridge", "outcomes"), record);
  });
}

test("a second GM without a connection: the approval cards drawn again, as the active GM's client keeps their outcome", async () => {
  await world({ users: USERS.map((u) => (u._id === OTHER_GM ? { ...u, active: true } : u)), user: GM, generation: 13 });
  const elements = drawMessages(13, () => {}); // the module's own render hook draws the buttons
  await bootModule();
  assert.equal(game.users.activeGM?.id, OTHER_GM, "the other GM's client is the one connected");
  const cards = { gm: await post(approvalCard(6, "p6", OTHER_GM)), player: await post(approvalCard(7, "p7", PLAYER)) };
  assert.deepEqual(shown(cards, elements), { gm: "||", player: "||" });
  // the active GM's client writes the record (Foundry runs the setting's onChange on every client)
  await game.settings.set("rollbridge", "outcomes", { tables: [{ table: "t1", settled: { "1:p6": { outcome: "approved" }, "1:p7": { outcome: "rejected", reason: "too late" } } }] });
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(shown(cards, elements), { gm: "|Approved|", player: "|Rejected|“too late”" }, "drawn again, in place");
});

for (const generation of [12, 13]) {
  test(`v${generation}: a card a player posted as their request's approval card: no Approve or Reject on it, and the GM's own card posted all the same`, async () => {
    // a player's message flagged as the card of p9 (and of p10, the next id), in words of their own
    const elements = await page(generation, GM, {});
    const forged = (seq, pending) => post({ ...approvalCard(seq, pending, PLAYER), content: '<div class="rollbridge-card">alice asks for 1d6</div>' });
    const theirs = { p9: await forged(null, "p9"), p10: await forged(10, "p10") };
    client.start();
    const ws = FakeWebSocket.last();
    ws.open();
    const hello = ws.messages().find((m) => m.type === "hello");
    // p9 began waiting while no GM's client took its event (a snapshot); p10's event comes live
    const entry = { pending: "p9", type: "resolve", id: "x9", fields: { action: "attack" }, who: { name: "alice", role: "player", key: "k" } };
    ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 9, locale: "en", table: { id: "t1", actors: [], pending: [entry] } });
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 10, kind: "approval.requested", gm_only: true,
      data: { pending: "p10", request: { ...entry, pending: undefined, id: "x10" } } });
    await settle(client);
    const gmCards = Standin.log.messages.filter((m) => m.author === GM && m.flags.rollbridge.kind === "approval.requested");
    assert.deepEqual(gmCards.map((m) => m.flags.rollbridge.pending), ["p9", "p10"], "the GM's own card of each");
    for (const card of gmCards) assert.match(card.content, /alice asks for attack/, "the server's words of what is asked");
    // Approve and Reject on the GM's cards only: a press on the player's would approve
    // what the server holds, not the 1d6 their words say
    assert.deepEqual(shown({ ...theirs, gm9: gmCards[0], gm10: gmCards[1] }, elements),
      { p9: "||", p10: "||", gm9: "approve reject||", gm10: "approve reject||" });
    // the GM's cards are the ones the record concerns: one card each, posted once
    ws.drop();
    client.nudge();
    const again = FakeWebSocket.last();
    again.open();
    const next = again.messages().find((m) => m.type === "hello");
    again.receive({ type: "welcome", id: next.id, protocol: 1, role: "gm", epoch: 1, seq: 10, locale: "en", table: { id: "t1", actors: [], pending: [entry] } });
    await settle(client);
    assert.equal(Standin.log.messages.filter((m) => m.author === GM && m.flags.rollbridge.kind === "approval.requested").length, 2, "not posted again");
  });
}

// Foundry's server lets a user with SETTINGS_MODIFY write a world setting: a GM may
// grant it to players (Permission Configuration), and an assistant has it only as long
// as the GM leaves it to them. So the record is read only as a GM wrote it last (its
// Setting document's `_stats.lastModifiedBy`, the server's word).
const PLAYERS_MAY = { SETTINGS_MODIFY: [1, 2, 3, 4] };

for (const generation of [12, 13]) {
  test(`v${generation}: a player the GM let modify settings writes the record: no page reads it, and the GM's client starts it again`, async () => {
    await page(generation, PLAYER, {}, { permissions: PLAYERS_MAY });
    const forged = { tables: [{ table: "t1", settled: { "1:p7": { outcome: "approved" }, "1:p8": { outcome: "rejected", reason: "the GM said <b>yes</b> to me" } } }] };
    await game.settings.set("rollbridge", "outcomes", forged); // Foundry takes it
    // the GM reloads: the player's record says nothing; a GM's card of an earlier version still does
    const elements = await page(generation, GM, forged, { by: PLAYER, permissions: PLAYERS_MAY });
    const cards = { p7: await post(approvalCard(7, "p7", GM)), p8: await post(approvalCard(8, "p8", GM)), p9: await post(approvalCard(9, "p9", GM, { outcome: "approved" })) };
    assert.deepEqual(shown(cards, elements), { p7: "||", p8: "||", p9: "|Approved|" }, "before the welcome");
    const ws = welcomeGM(9, [{ pending: "p7" }]);
    await settle(client);
    assert.deepEqual(shown(cards, elements), { p7: "approve reject||", p8: "|No longer waiting for approval|", p9: "|Approved|" }, "after it: the server's word");
    // the GM's client keeps the next outcome in a record of its own: none of the player's in it
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 10, kind: "approval.rejected", data: { pending: "p7", reason: "" }, actors: [] });
    await settle(client);
    assert.deepEqual(game.settings.get("rollbridge", "outcomes"), { tables: [{ table: "t1", settled: { "1:p7": { outcome: "rejected" } } }] });
    assert.equal(game.settings.storage.get("world").getSetting("rollbridge.outcomes")._stats.lastModifiedBy, GM);
    assert.deepEqual(shown(cards, elements), { p7: "|Rejected|", p8: "|No longer waiting for approval|", p9: "|Approved|" });
  });
}

test("an assistant GM as the active GM: keeps the record as a GM does; without SETTINGS_MODIFY the write is refused, logged, and the card says what the page saw", async () => {
  const ASSISTANT = "standinAst00001";
  const users = [{ _id: ASSISTANT, name: "Assistant", role: 3 }, { _id: GM, name: "Gamemaster", isGM: true, active: false }, { _id: PLAYER, name: "Player" }];
  const run = async (permissions) => {
    const elements = await page(13, ASSISTANT, {}, { users, permissions });
    assert.equal(game.users.activeGM?.id, ASSISTANT);
    const card = await post(approvalCard(7, "p7", ASSISTANT));
    const ws = welcomeGM(7, [{ pending: "p7" }]);
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 8, kind: "approval.rejected", data: { pending: "p7", reason: "too late" }, actors: [] });
    await settle(client);
    return { shown: shown({ card }, elements).card, record: game.settings.get("rollbridge", "outcomes") };
  };
  const warnings = [];
  const warn = console.warn;
  console.warn = (text) => warnings.push(String(text));
  try {
    // by default an assistant has SETTINGS_MODIFY: the record kept, a GM's (an assistant is one)
    assert.deepEqual(await run(null), { shown: "|Rejected|“too late”", record: { tables: [{ table: "t1", settled: { "1:p7": { outcome: "rejected", reason: "too late" } } }] } });
    const kept = game.settings.get("rollbridge", "outcomes");
    const elements = await page(13, GM, kept, { by: ASSISTANT, users });
    const again = await post(approvalCard(7, "p7", ASSISTANT));
    assert.equal(shown({ again }, elements).again, "|Rejected|“too late”", "a reload reads it");
    assert.deepEqual(warnings, []);
    // the GM took it from assistants: Foundry refuses the write; the card still says what this page saw
    assert.deepEqual(await run({ SETTINGS_MODIFY: [4] }), { shown: "|Rejected|“too late”", record: {} });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /the outcome of p7 is not kept: User Assistant lacks permission/);
  } finally {
    console.warn = warn;
  }
});
