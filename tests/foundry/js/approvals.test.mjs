// The approval cards after a GM's reload and after a dropped connection: the GM's
// welcome lists the requests still waiting (`table.pending`, docs/protocol.md), so
// every approval card in the chat log is drawn again at once as it stands — a
// request still waiting with Approve and Reject, one settled meanwhile without them
// and with a line saying how, when this client saw it (its event), or that it no
// longer waits. Before the fix a reloaded GM's log showed Approve and Reject on
// every approval card until pressed (then the server answered not_pending).

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { Approvals } from "../../../adapters/foundry/module/scripts/core/approvals.mjs";
import { REASON_MAX } from "../../../adapters/foundry/module/scripts/core/rejection.mjs";
import { addButtons, press } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { drawMessages } from "./elements.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];
const [GM] = USERS.map((u) => u._id);
let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

test("the requests waiting: the welcome's list, then the events; a resume's missed events tell only how", () => {
  const a = new Approvals();
  assert.equal(a.state("p1"), null, "before a welcome nothing is known");
  a.welcome({ pending: [{ pending: "p2", type: "roll" }] }, 1);
  assert.deepEqual([a.state("p1"), a.state("p2")], ["settled", "waiting"]);
  assert.deepEqual(a.see({ kind: "approval.requested", data: { pending: "p3" } }), []);
  assert.equal(a.state("p3"), "waiting");
  assert.deepEqual(a.see({ kind: "approval.requested", data: { pending: "p0" } }, { replayed: true }), []);
  assert.equal(a.state("p0"), "settled", "a missed request the welcome no longer lists still does not wait");
  assert.deepEqual(a.see({ kind: "approval.rejected", data: { pending: "p2" } }), ["p2"]);
  assert.deepEqual(a.see({ kind: "resolution", data: { approved: "p3", approved_by: "gm" } }), ["p3"]);
  assert.deepEqual(a.see({ kind: "approval.rejected", data: { pending: "p2" } }), [], "known already");
  assert.deepEqual([a.state("p2"), a.state("p3")], ["rejected", "approved"]);
  assert.equal(a.settle("p3", "settled"), false, "a known how stays");
  a.welcome({ pending: [] }, 1);
  assert.equal(a.state("p3"), "approved", "the same epoch: what was seen stays");
  a.welcome({ pending: [] }, 2);
  assert.equal(a.state("p3"), "settled", "another epoch's ids are another log's");
  a.welcome({ actors: [] }, 2);
  assert.equal(a.state("p9"), "waiting", "a welcome without the list (an older server): as before, until settled");
});

const approvalCard = (seq, pending, extra = {}) => ({
  content: `<div class="rollbridge-card rb-approval" data-kind="approval.requested" data-seq="${seq}" data-epoch="1">alice asks for attack</div>`,
  whisper: [GM], author: GM,
  flags: { rollbridge: { table: "t1", epoch: 1, seq, kind: "approval.requested", pending, secret: true, view: "gm", ...extra } },
});

/** A GM's page reloaded with approval cards of p3, p4, p5 and p6 in the log (drawn by the module's render hook). */
async function reloadedPage(generation) {
  client?.stop();
  await world({ users: USERS, user: "gm", generation });
  await registerModuleSettings();
  client = new FoundryClient();
  const elements = drawMessages(generation, (message, html) => addButtons(message, html, client));
  const messages = {};
  for (const [seq, pending] of [[3, "p3"], [4, "p4"], [5, "p5"], [6, "p6"]]) {
    messages[pending] = await ChatMessage._fromWorld({ data: approvalCard(seq, pending), user: GM });
  }
  // another table's card of its own "p5": never this table's p5
  messages.foreign = await ChatMessage._fromWorld({ data: approvalCard(5, "p5", { table: "t0" }), user: GM });
  return { messages, elements };
}

/** The GM's page reloaded: the world's chat as Foundry's server keeps it (`messages`,
 * each as its `toObject()`), drawn again by a new client's render hook. */
async function reloadKeeping(messages, generation) {
  const kept = Object.fromEntries(Object.entries(messages).map(([name, message]) => [name, message.toObject()]));
  // and the world's settings as Foundry's server keeps them: the GM's record of outcomes
  const outcomes = game.settings.get("rollbridge", "outcomes");
  client.stop();
  await world({ users: USERS, user: "gm", generation, settings: { "rollbridge.outcomes": outcomes } });
  await registerModuleSettings();
  client = new FoundryClient();
  const elements = drawMessages(generation, (message, html) => addButtons(message, html, client));
  const again = {};
  for (const [name, data] of Object.entries(kept)) again[name] = await ChatMessage._fromWorld({ data, user: GM });
  return { again, elements };
}

/** What each card shows: its GM buttons, and the line of how it was settled. */
const shown = (messages, elements) => Object.fromEntries(Object.entries(messages).map(([name, message]) => {
  const html = elements.get(message.id).card.shown;
  const buttons = ["approve", "reject"].filter((a) => html.includes(`data-rollbridge-action="${a}"`)).join(" ");
  const line = /data-settled="(\w+)">([^<]*)</.exec(html);
  return [name, [buttons, line ? line[2].trim() : ""].join("|")];
}));

function welcome(ws, { seq, pending, resume = null, settled = null }) {
  const hello = ws.messages().filter((m) => m.type === "hello").at(-1);
  ws.receive({
    type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq, locale: "en",
    ...(resume ? { resume } : {}), ...(settled ? { settled } : {}),
    table: { id: "t1", actors: [], pending: pending.map((id) => ({ pending: id, type: "resolve", id: `x-${id}` })) },
  });
}

for (const generation of [12, 13]) {
  test(`v${generation}: a GM's reload: every approval card drawn as it stands once the welcome says what waits`, async () => {
    const { messages, elements } = await reloadedPage(generation);
    // a resume from the saved cursor (#4): the events after it come with the welcome
    await game.settings.set("rollbridge", "cursor", { table: "t1", epoch: 1, seq: 4 });
    client.start();
    const ws = FakeWebSocket.last();
    ws.open();
    assert.deepEqual(shown(messages, elements), { p3: "|", p4: "|", p5: "|", p6: "|", foreign: "|" },
      "drawn before the welcome: no button, nothing known");
    const drawn = Standin.log.rendered.length;
    // p3 approved and p4 rejected before the reload, p5 waits, p6 rejected after the cursor
    welcome(ws, { seq: 7, pending: ["p5"], resume: { recovered: true, missed: 3 } });
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 5, kind: "approval.requested", gm_only: true, data: { pending: "p5", request: { type: "resolve" } } });
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 6, kind: "approval.requested", gm_only: true, data: { pending: "p6", request: { type: "resolve" } } });
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 7, kind: "approval.rejected", gm_only: true, data: { pending: "p6" }, actors: [] });
    await settle(client);
    assert.deepEqual(shown(messages, elements), {
      p3: "|No longer waiting for approval", p4: "|No longer waiting for approval", p5: "approve reject|", p6: "|Rejected", foreign: "|",
    });
    assert.deepEqual(ws.messages().map((m) => m.type), ["hello"], "nothing sent");
    assert.equal(Standin.log.messages.length, Object.keys(messages).length, "no card posted again");
    const again = new Set(Standin.log.rendered.slice(drawn).filter((r) => r.updated).map((r) => r.message));
    assert.ok(!again.has(messages.foreign.id), "another table's card left alone");
    // p5 approved here: its card says so
    elements.get(messages.p5.id).card.buttons.click("approve");
    for (let i = 0; i < 50 && ws.messages().at(-1).type !== "approve"; i++) await new Promise((r) => setImmediate(r));
    const sent = ws.messages().at(-1);
    assert.deepEqual({ ...sent, id: undefined }, { type: "approve", request: "p5", id: undefined });
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 8, kind: "roll", request: "x-p5", data: { formula: "1d6", total: 3, approved: "p5", approved_by: "gm" }, actors: [], foundry: { rolls: [] } });
    ws.receive({ type: "result", id: sent.id, status: "done", seq: 8 });
    await settle(client);
    assert.equal(shown(messages, elements).p5, "|Approved");
  });
}

test("the connection back after an outage: a request approved meanwhile (a snapshot, no event of it) loses its buttons", async () => {
  const { messages, elements } = await reloadedPage(13);
  client.start();
  const first = FakeWebSocket.last();
  first.open();
  welcome(first, { seq: 6, pending: ["p3", "p5"] });
  await settle(client);
  assert.deepEqual(shown(messages, elements), {
    p3: "approve reject|", p4: "|No longer waiting for approval", p5: "approve reject|", p6: "|No longer waiting for approval", foreign: "|",
  });
  // the network drops; meanwhile the web view approved p3 and the log moved past the
  // resume: the welcome when the network is back is a snapshot
  first.drop();
  client.nudge();
  const second = FakeWebSocket.last();
  assert.notEqual(second, first, "reconnected at once");
  second.open();
  welcome(second, { seq: 1200, pending: ["p5"], resume: { recovered: false } });
  await settle(client);
  assert.deepEqual(shown(messages, elements).p3, "|No longer waiting for approval");
  assert.deepEqual(shown(messages, elements).p5, "approve reject|");
  // a card drawn before (its buttons still there) pressed: nothing is sent, the GM is told
  Standin.log.notifications.length = 0;
  const count = second.messages().length;
  assert.equal(await press("approve", { table: "t1", epoch: 1, seq: 3, kind: "approval.requested", pending: "p3" }, client), null);
  assert.equal(await press("reject", { table: "t0", epoch: 1, seq: 5, kind: "approval.requested", pending: "p5" }, client), null,
    "another table's p5 is not this table's");
  assert.equal(second.messages().length, count, "nothing sent");
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), Array(2).fill("rollbridge: No longer waiting for approval"));
});

test("a press the server answers not_pending: the card says the request no longer waits", async () => {
  const { messages, elements } = await reloadedPage(13);
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  // an older server lists nothing: the cards keep their buttons until an event settles them
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 6, locale: "en", table: { id: "t1", actors: [] } });
  await settle(client);
  assert.equal(shown(messages, elements).p4, "approve reject|");
  const pressed = press("approve", { table: "t1", epoch: 1, seq: 4, kind: "approval.requested", pending: "p4" }, client);
  for (let i = 0; i < 50 && ws.messages().at(-1).type !== "approve"; i++) await new Promise((r) => setImmediate(r));
  ws.receive({ type: "error", id: ws.messages().at(-1).id, code: "not_pending", message: "Request p4 is no longer pending." });
  assert.equal(await pressed, null);
  await settle(client);
  assert.equal(shown(messages, elements).p4, "|No longer waiting for approval");
});

test("an Approve refused for the player's own dice tells the GM whose dice they are and what to do", async () => {
  const { messages, elements } = await reloadedPage(13);
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  welcome(ws, { seq: 6, pending: ["p4"] });
  await settle(client);
  Standin.log.notifications.length = 0;
  const refused = async (action, code, message) => {
    const pressed = press(action, { table: "t1", epoch: 1, seq: 4, kind: "approval.requested", pending: "p4" }, client);
    for (let i = 0; i < 50 && ws.messages().at(-1).type !== "approve"; i++) await new Promise((r) => setImmediate(r));
    ws.receive({ type: "error", id: ws.messages().at(-1).id, code, message });
    assert.equal(await pressed, null);
    return Standin.log.notifications.pop()?.text;
  };
  const told = await refused("approve", "dice_exhausted", "the roll needs more dice than the 6 supplied (next: a d6)");
  assert.ok(told.startsWith("rollbridge: the roll needs more dice than the 6 supplied (next: a d6) "), told);
  assert.ok(told.endsWith("Approve it with your dice (Approve with my dice…) or reject it."), `what to do: ${told}`);
  assert.ok(told.includes("the player's own dice"), `whose dice: ${told}`);
  await settle(client);
  assert.equal(shown(messages, elements).p4, "approve reject|", "it still waits: the buttons stay");
  // another refusal of an approve says only the server's words
  assert.equal(await refused("approve", "store_error", "the store failed"), "rollbridge: the store failed");
});

// -- the player's side ------------------------------------------------------------------
// A player's /rb do at a table with `approval` is answered {status: "pending"}: before
// this the player read nothing at all, and nothing either when the GM rejected it.

/** The player's page (a new client) welcomed at table t1 at seq 2: its socket. */
async function playerPage(generation) {
  client?.stop();
  await world({ users: USERS, user: USERS[1]._id, generation });
  await registerModuleSettings();
  client = new FoundryClient();
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "player", epoch: 1, seq: 2, locale: "en", table: { id: "t1", actors: [] } });
  await settle(client);
  return ws;
}

test("a player's request held for the GM's approval is said; its rejection told the player alone, the GM's reason as text", async () => {
  const ws = await playerPage(13);
  Standin.log.notifications.length = 0;
  const asked = client.resolve("attack", { actor: "alice-pc", targets: ["guard"], params: { weapon: "Hackler" } });
  for (let i = 0; i < 50 && ws.messages().at(-1).type !== "resolve"; i++) await new Promise((r) => setImmediate(r));
  const sent = ws.messages().at(-1);
  ws.receive({ type: "result", id: sent.id, status: "pending", pending: "p3" });
  assert.deepEqual(await asked, { type: "result", id: sent.id, status: "pending", pending: "p3" });
  assert.deepEqual(Standin.log.notifications.map((n) => [n.level, n.text]), [["info", "rollbridge: your request waits for the GM's approval."]]);
  // another player's request rejected: not this player's business
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 3, kind: "approval.rejected", data: { pending: "p2", request: "bob-1", type: "resolve", requested_by: "bob", reason: "" }, actors: [] });
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 4, kind: "approval.rejected", data: { pending: "p3", request: sent.id, type: "resolve", requested_by: "alice", reason: "<b>no</b> & not now" }, actors: [] });
  await settle(client);
  assert.deepEqual(Standin.log.notifications.slice(1).map((n) => [n.level, n.text]), [["warn", "rollbridge: the GM rejected your request: &lt;b&gt;no&lt;/b&gt; &amp; not now"]]);
  assert.equal(Standin.log.messages.length, 0, "a player's client posts nothing of it");
});

test("a request that began waiting while the GM's client was away, its welcome a snapshot: its card posted once, with Approve and Reject", async () => {
  const { messages, elements } = await reloadedPage(13);
  client.start(); // no saved cursor: the welcome is the table as it stands
  const ws = FakeWebSocket.last();
  ws.open();
  const entry = { pending: "p9", type: "resolve", id: "x9", fields: { action: "attack" }, who: { name: "<b>bob</b>", role: "player", key: "k" } };
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "gm", epoch: 1, seq: 12, locale: "en", table: { id: "t1", actors: [], pending: [{ pending: "p5" }, entry] } });
  await settle(client);
  const posted = Standin.log.messages.filter((m) => m.flags.rollbridge.pending === "p9");
  assert.equal(posted.length, 1, "the card of p9, which had none");
  assert.deepEqual(posted[0].whisper, [GM]);
  assert.match(posted[0].content, /&lt;b&gt;bob&lt;\/b&gt; asks for attack/, "the name as text");
  assert.deepEqual(Standin.log.messages.filter((m) => m.flags.rollbridge.pending === "p5").length, 2, "p5's card was there (and another table's): none again");
  assert.match(elements.get(posted[0].id).card.shown, /"approve".*"reject"/s);
  assert.equal(shown(messages, elements).p5, "approve reject|");
  // the connection back with another snapshot, and then p9's own event (a later resume): no second card
  ws.drop();
  client.nudge();
  const again = FakeWebSocket.last();
  again.open();
  welcome(again, { seq: 12, pending: ["p5", "p9"], resume: { recovered: false } });
  again.receive({ type: "event", table: "t1", epoch: 1, seq: 13, kind: "approval.requested", gm_only: true, data: { pending: "p9", request: entry } });
  await settle(client);
  assert.equal(Standin.log.messages.filter((m) => m.flags.rollbridge.pending === "p9").length, 1);
  // pressed: the approval names it
  elements.get(posted[0].id).card.buttons.click("approve");
  for (let i = 0; i < 50 && again.messages().at(-1).type !== "approve"; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual({ ...again.messages().at(-1), id: undefined }, { type: "approve", request: "p9", id: undefined });
});

for (const generation of [12, 13]) {
  test(`v${generation}: a snapshot after an outage: the welcome's settled says Approved, or Rejected with the GM's reason, and the GM's record keeps it`, async () => {
    const { messages, elements } = await reloadedPage(generation);
    client.start();
    const first = FakeWebSocket.last();
    first.open();
    welcome(first, { seq: 6, pending: ["p3", "p4", "p5", "p6"] });
    await settle(client);
    // the network drops; meanwhile the web view approved p3, rejected p4 with a reason
    // and p6 without, and the log moved past the resume: a snapshot, no event of them
    first.drop();
    client.nudge();
    const second = FakeWebSocket.last();
    second.open();
    const reason = "not in this <b>scene</b>";
    welcome(second, {
      seq: 1200, pending: ["p5"], resume: { recovered: false, missed: 0 },
      settled: [
        { pending: "p3", outcome: "approved", seq: 1190 }, { pending: "p4", outcome: "rejected", seq: 1191, reason },
        { pending: "p6", outcome: "rejected", seq: 1192 },
        // what the server never sends is not read: a pending still listed, another outcome
        { pending: "p5", outcome: "rejected", seq: 1193 }, { pending: "p7", outcome: "maybe", seq: 1194 },
      ],
    });
    await settle(client);
    assert.deepEqual(shown(messages, elements), {
      p3: "|Approved", p4: "|Rejected", p5: "approve reject|", p6: "|Rejected", foreign: "|",
    }, "not 'No longer waiting for approval'");
    assert.equal(reasonShown(messages.p4, elements), "“not in this &lt;b&gt;scene&lt;/b&gt;”");
    assert.deepEqual(game.settings.get("rollbridge", "outcomes"), { tables: [{ table: "t1", settled: {
      "1:p3": { outcome: "approved" }, "1:p4": { outcome: "rejected", reason }, "1:p6": { outcome: "rejected" },
    } }] }, "kept in the GM's record");
    assert.equal(Standin.log.settingsSet.filter((id) => id === "rollbridge.outcomes").length, 1, "in one write");
    // and a reload reads it from the record, before the welcome
    const { again, elements: drawnAgain } = await reloadKeeping(messages, generation);
    assert.deepEqual(shown(again, drawnAgain), { p3: "|Approved", p4: "|Rejected", p5: "|", p6: "|Rejected", foreign: "|" });
  });
}

test("a snapshot welcome that tells the GM's client nothing its record does not keep writes no record: each drop at a busy table", async () => {
  const { messages } = await reloadedPage(13);
  client.start();
  // a busy table: the server lists its 200 newest settled requests (the record keeps
  // 100), the newest with long reasons (past the record's 16 KiB, the oldest reasons go)
  const settled = Array.from({ length: 200 }, (_, i) => ({
    pending: `p${100 + i}`, seq: 1000 + i, ...(i % 2 ? { outcome: "approved" } : { outcome: "rejected", reason: "ж".repeat(400) }),
  }));
  const writes = () => Standin.log.settingsSet.filter((id) => id === "rollbridge.outcomes").length;
  let ws = FakeWebSocket.last();
  ws.open();
  welcome(ws, { seq: 1300, pending: [], resume: { recovered: false, missed: 0 }, settled });
  await settle(client);
  assert.equal(writes(), 1, "kept in one write");
  const kept = game.settings.get("rollbridge", "outcomes");
  // the GM's network drops twice, each time for long: snapshots listing the same
  for (let drop = 0; drop < 2; drop++) {
    ws.drop();
    client.nudge();
    ws = FakeWebSocket.last();
    ws.open();
    welcome(ws, { seq: 1300, pending: [], resume: { recovered: false, missed: 0 }, settled });
    await settle(client);
  }
  assert.equal(writes(), 1, "the record, the same, not sent to every client again");
  assert.deepEqual(game.settings.get("rollbridge", "outcomes"), kept);
  assert.ok(messages.p3, "the page's cards as before");
});

for (const generation of [12, 13]) {
  test(`v${generation}: a request settled before the GM's reload: its card says Approved or Rejected after it, as the GM's client kept it in the world setting`, async () => {
    const { messages } = await reloadedPage(generation);
    client.start();
    const ws = FakeWebSocket.last();
    ws.open();
    welcome(ws, { seq: 6, pending: ["p3", "p4", "p5", "p6"] });
    // p3 rejected (by this GM or another), p4 approved in the web view; p5 and p6 still wait
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 7, kind: "approval.rejected", gm_only: true, data: { pending: "p3" }, actors: [] });
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 8, kind: "roll", request: "x-p4", data: { formula: "1d6", total: 3, approved: "p4", approved_by: "gm" }, actors: [], foundry: { rolls: [] } });
    await settle(client);
    assert.deepEqual(game.settings.get("rollbridge", "outcomes"), { tables: [{ table: "t1", settled: { "1:p3": { outcome: "rejected" }, "1:p4": { outcome: "approved" } } }] },
      "the GM's record: this table's settled requests; another table's p5 and the waiting ones not in it");
    assert.deepEqual(Standin.log.messageUpdates, [], "no card's flags written: a player's own card's could be anyone's");
    const { again, elements } = await reloadKeeping(messages, generation);
    assert.deepEqual(shown(again, elements), { p3: "|Rejected", p4: "|Approved", p5: "|", p6: "|", foreign: "|" },
      "drawn before the welcome: the outcome written on the card, nothing else known");
    client.start();
    const next = FakeWebSocket.last();
    next.open();
    welcome(next, { seq: 8, pending: ["p5", "p6"] });
    await settle(client);
    assert.deepEqual(shown(again, elements), {
      p3: "|Rejected", p4: "|Approved", p5: "approve reject|", p6: "approve reject|", foreign: "|",
    }, "not 'No longer waiting for approval'");
    assert.deepEqual(Standin.log.settingsSet.filter((id) => id === "rollbridge.outcomes"), [], "nothing written again");
  });
}

/** The GM's reason shown on a card, as its HTML, or null. */
const reasonShown = (message, elements) => {
  const found = /<span class="rb-reason">\(reason: (.*?)\)<\/span>/.exec(elements.get(message.id).card.shown);
  return found ? found[1] : null;
};

for (const generation of [12, 13]) {
  test(`v${generation}: a rejection's reason is kept in the GM's record: after the GM's reload the card still gives it`, async () => {
    const { messages } = await reloadedPage(generation);
    client.start();
    const ws = FakeWebSocket.last();
    ws.open();
    welcome(ws, { seq: 6, pending: ["p3", "p4", "p5", "p6"] });
    const reason = "not in this <b>scene</b> & @UUID[x]";
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 7, kind: "approval.rejected", gm_only: true, data: { pending: "p3", reason }, actors: [] });
    // another GM's plain Reject: no reason, none kept
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 8, kind: "approval.rejected", gm_only: true, data: { pending: "p4", reason: "" }, actors: [] });
    await settle(client);
    assert.deepEqual(game.settings.get("rollbridge", "outcomes").tables[0].settled, { "1:p3": { outcome: "rejected", reason }, "1:p4": { outcome: "rejected" } },
      "the reason kept with the outcome");
    const { again, elements } = await reloadKeeping(messages, generation);
    // as text: no tag, and Foundry's enrichers (@UUID[…]) broken by empty spans
    const escaped = "“not in this &lt;b&gt;scene&lt;/b&gt; &amp; @<span></span>UUID[<span></span>x]”";
    assert.equal(reasonShown(again.p3, elements), escaped, "drawn before the welcome: the GM's words, as text");
    assert.equal(reasonShown(again.p4, elements), null);
    client.start();
    const next = FakeWebSocket.last();
    next.open();
    welcome(next, { seq: 8, pending: ["p5", "p6"] });
    await settle(client);
    assert.deepEqual(shown(again, elements), { p3: "|Rejected", p4: "|Rejected", p5: "approve reject|", p6: "approve reject|", foreign: "|" });
    assert.equal(reasonShown(again.p3, elements), escaped, "after the welcome too (this page never saw the event)");
    assert.deepEqual(Standin.log.settingsSet.filter((id) => id === "rollbridge.outcomes"), [], "nothing written again");
  });
}

test("a reason on a card that was not rejected, or on another kind of card, is not shown", async () => {
  const { messages, elements } = await reloadedPage(12);
  const odd = await ChatMessage._fromWorld({ data: approvalCard(9, "p9", { outcome: "approved", reason: "made up" }), user: GM });
  assert.equal(reasonShown(odd, elements), null, "approved: no reason");
  const blank = await ChatMessage._fromWorld({ data: approvalCard(10, "p10", { outcome: "rejected", reason: "   " }), user: GM });
  assert.equal(reasonShown(blank, elements), null, "only spaces: none");
  assert.equal(reasonShown(messages.p3, elements), null);
});

test("a reason a player could have written, or one the server never sends, is not shown as the GM's", async () => {
  const { elements } = await reloadedPage(13);
  const [, PLAYER] = USERS.map((u) => u._id);
  const card = async (seq, pending, reason, author = GM) => ChatMessage._fromWorld({
    data: { ...approvalCard(seq, pending, { outcome: "rejected", reason }), author, whisper: [GM, PLAYER] }, user: GM });
  // a player's GM roll: the card is theirs, and Foundry lets them update its flags
  const forged = await card(11, "p11", "<b>granted</b>: +10 to every roll", PLAYER);
  assert.equal(reasonShown(forged, elements), null, "a player's own card: no words of theirs as the GM's");
  assert.deepEqual(shown({ forged }, elements), { forged: "|" }, "nor their outcome");
  const cases = {
    long: "y".repeat(REASON_MAX + 1), // longer than the server takes
    huge: "<i>x</i>".repeat(200_000),
    bidi: "not \u202enow", // the server refuses bidirectional controls
    object: { toString: () => "an object" },
    number: 7,
  };
  let seq = 20;
  for (const [name, reason] of Object.entries(cases)) {
    assert.equal(reasonShown(await card(seq, `p${seq++}`, reason), elements), null, name);
  }
  // 500 characters (emoji: 1,000 UTF-16 units) are a reason the server takes
  const skulls = "\u{1F480}".repeat(REASON_MAX);
  assert.equal(reasonShown(await card(seq, `p${seq}`, skulls), elements), `“${skulls}”`);
});

/** Reasons of zero-width characters alone, as a log written before the server blanked
 * them keeps them (and replays them): each shows nothing. */
const BLANK_REASONS = ["\u200b", "\u200b\u200d \u2060", "\ufeff\u3164", "\u2800\u180e", "\u{e0020}\u{e0041}", "\u00ad\u034f"];

for (const generation of [12, 13]) {
  test(`v${generation}: a reason of zero-width characters alone (an old log's) is no reason: Rejected alone, none kept, the player told without one`, async () => {
    const { messages, elements } = await reloadedPage(generation);
    client.start();
    const ws = FakeWebSocket.last();
    ws.open();
    welcome(ws, { seq: 6, pending: ["p3", "p4", "p5", "p6"] });
    // replayed from the log: two rejections whose reasons show nothing, one with words
    const rejected = (seq, pending, reason) => ({ type: "event", table: "t1", epoch: 1, seq, kind: "approval.rejected", gm_only: true, data: { pending, reason }, actors: [] });
    ws.receive(rejected(7, "p3", BLANK_REASONS[1]));
    ws.receive(rejected(8, "p4", BLANK_REASONS[4]));
    ws.receive(rejected(9, "p5", "\u200bnot now"));
    await settle(client);
    assert.deepEqual([reasonShown(messages.p3, elements), reasonShown(messages.p4, elements)], [null, null], "no empty quotes");
    assert.equal(reasonShown(messages.p5, elements), "“\u200bnot now”", "words among them still shown");
    assert.deepEqual(game.settings.get("rollbridge", "outcomes").tables[0].settled, {
      "1:p3": { outcome: "rejected" }, "1:p4": { outcome: "rejected" }, "1:p5": { outcome: "rejected", reason: "\u200bnot now" },
    }, "none kept in the GM's record");
    // a record an earlier version wrote with such a reason, read after a reload
    const record = { tables: [{ table: "t1", settled: Object.fromEntries(BLANK_REASONS.map((reason, i) => [`1:p${10 + i}`, { outcome: "rejected", reason }])) }] };
    await game.settings.set("rollbridge", "outcomes", record);
    const cards = {};
    for (let i = 0; i < BLANK_REASONS.length; i++) cards[i] = await ChatMessage._fromWorld({ data: approvalCard(10 + i, `p${10 + i}`), user: GM });
    assert.deepEqual(Object.values(cards).map((card) => reasonShown(card, elements)), BLANK_REASONS.map(() => null));
    assert.deepEqual(Object.values(shown(cards, elements)), BLANK_REASONS.map(() => "|Rejected"));
    // the player whose request it was: told, without a reason
    const mine = await playerPage(generation);
    const asked = client.roll("1d6");
    for (let i = 0; i < 50 && mine.messages().at(-1).type !== "foundry.roll"; i++) await new Promise((r) => setImmediate(r));
    const sent = mine.messages().at(-1);
    mine.receive({ type: "result", id: sent.id, status: "pending", pending: "p3" });
    await asked;
    Standin.log.notifications.length = 0;
    mine.receive({ type: "event", table: "t1", epoch: 1, seq: 3, kind: "approval.rejected", data: { pending: "p3", request: sent.id, type: "roll", requested_by: "alice", reason: BLANK_REASONS[0] }, actors: [] });
    await settle(client);
    assert.deepEqual(Standin.log.notifications.map((n) => n.text), ["rollbridge: the GM rejected your request."]);
  });
}

test("an outcome a player wrote on their own waiting card takes neither Approve nor Reject from the GM's card", async () => {
  const { messages, elements } = await reloadedPage(13);
  const [, PLAYER] = USERS.map((u) => u._id);
  // the player's GM roll: their card, whose flags they may update as its author
  const theirs = await ChatMessage._fromWorld({
    data: { ...approvalCard(7, "p7", { outcome: "rejected", reason: "the GM said yes" }), author: PLAYER, whisper: [GM, PLAYER] },
    user: GM,
  });
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  welcome(ws, { seq: 8, pending: ["p3", "p7"] });
  await settle(client);
  assert.deepEqual(shown({ p3: messages.p3, theirs }, elements), { p3: "approve reject|", theirs: "|" },
    "the server lists it waiting: it waits (Approve and Reject on the GM's own card of it: outcomes.test.mjs)");
  assert.equal(reasonShown(theirs, elements), null);
  // once the server settles it, the card says how (the event, not the flag)
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 9, kind: "approval.rejected", gm_only: true, data: { pending: "p7", reason: "" }, actors: [] });
  await settle(client);
  assert.deepEqual(shown({ theirs }, elements), { theirs: "|Rejected" });
});
