// Buttons on the chat card (issue 15, item 5): the GM's undo and redo of that
// resolution (while it is the latest change) and approve / reject of a
// pending request; a target's owner's "apply to selected"; both render hooks'
// shapes (v12 jQuery, v13 HTMLElement); a player's request to the GM's client
// through v13's User#query / CONFIG.queries. Node has no DOM: a small fake
// element stands for the rendered message (insertAdjacentHTML, querySelector,
// click listeners: elements.mjs), the rest is the Foundry stand-in.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { buttonRequest, buttonsHtml, cardButtons, isUndoable, UndoTracker } from "../../../adapters/foundry/module/scripts/core/buttons.mjs";
import { addButtons, cardOf, press } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerRelay } from "../../../adapters/foundry/module/scripts/foundry/relay.mjs";
import { Approvals } from "../../../adapters/foundry/module/scripts/core/approvals.mjs";
import { keptOutcome } from "../../../adapters/foundry/module/scripts/core/outcomes.mjs";
import { REASON_MAX, reasonFormHtml, reasonOf } from "../../../adapters/foundry/module/scripts/core/rejection.mjs";
import { diceFormHtml, diceOf } from "../../../adapters/foundry/module/scripts/core/approvedice.mjs";
import { FakeMessageElement } from "./elements.mjs";
import { en, LANGUAGES, localization } from "./localization.mjs";
import { registerModuleSettings, settle, Standin, until, welcomeClient, world } from "./standin.mjs";

const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];
const [GM, PLAYER] = USERS.map((u) => u._id);

test("the undo tracker follows the server's stacks from the events", () => {
  const t = new UndoTracker();
  const resolution = (seq) => ({ kind: "resolution", seq, actors: [{ id: "g" }] });
  assert.equal(isUndoable({ kind: "resolution", seq: 1, actors: [] }), false, "a resolution that changed nothing");
  assert.equal(isUndoable({ kind: "roll", seq: 1 }), false);
  t.see(resolution(4));
  t.see({ kind: "roll", seq: 5 });
  assert.ok(t.canUndo(4), "a roll after it is no change");
  t.see(resolution(6));
  assert.ok(!t.canUndo(4) && t.canUndo(6));
  t.see({ kind: "undo", seq: 7, data: { undoes: 6 } });
  assert.ok(t.canUndo(4) && t.canRedo(6));
  t.see({ kind: "redo", seq: 8, data: { redoes: 6 } });
  assert.ok(t.canUndo(6) && !t.canRedo(6));
  t.see({ kind: "undo", seq: 9, data: { undoes: 6 } });
  t.see({ kind: "adjusted", seq: 10 });
  assert.ok(!t.canRedo(6), "a new change: nothing to redo");
  t.see({ kind: "undo", seq: 11, data: { undoes: 99 } });
  assert.ok(!t.canUndo(4), "an undo of something unseen: the stack is unknown");
});

test("the undo tracker starts from the GM's table (undo_redo) and trims as the server does", () => {
  const t = new UndoTracker();
  t.reset({ seq: 12, undo: [3, 9, 12], redo: [], retain: 6, depth: 100 });
  assert.ok(t.known && t.named && t.canUndo(12));
  t.see({ kind: "resolution", seq: 12, actors: [{ id: "g" }] });
  assert.deepEqual(t.undo, [3, 9, 12], "an event up to the table's seq is in the stacks already");
  t.see({ kind: "undo", seq: 13, data: { undoes: 12 } });
  assert.equal(t.latestUndo(), 9, "under the undone event: the one the server named");
  assert.equal(t.latestRedo(), 12);
  assert.deepEqual(t.undo, [9], "entries at or below seq - retain (13 - 6) are out of reach");
  t.see({ kind: "undo", seq: 14, data: { undoes: 9 } });
  assert.deepEqual(t.redo, [12, 9]);
  t.see({ kind: "roll", seq: 15 });
  assert.deepEqual(t.redo, [], "the latest undone (9) out of reach (15 - 6): the one under it goes too");
  t.reset({ seq: 3, undo: [1, 2, 3], redo: [], retain: null, depth: 3 });
  t.see({ kind: "adjusted", seq: 4, actors: [{ id: "g" }] });
  assert.deepEqual(t.undo, [2, 3, 4], "no deeper than the server's depth");
  t.reset(undefined);
  assert.ok(!t.known && !t.named && t.latestUndo() === undefined, "a player's table (or an older server): nothing known");
});

test("which buttons whom: the GM's undo, redo, approve, reject; an owner's apply", () => {
  const t = new UndoTracker();
  t.see({ kind: "resolution", seq: 4, actors: [{ id: "g" }] });
  const gm = { isGM: true };
  const player = { isGM: false };
  const card = { kind: "resolution", seq: 4, targets: ["g"], apply: { action: "damage", params: { code: "6M" } } };
  assert.deepEqual(cardButtons({ card, user: gm, tracker: t }).map((b) => b.action), ["undo", "apply"]);
  assert.deepEqual(cardButtons({ card, user: player, tracker: t }).map((b) => b.action), [], "not the target's owner");
  assert.deepEqual(cardButtons({ card, user: player, tracker: t, owns: (id) => id === "g" }).map((b) => b.action), ["apply"]);
  assert.deepEqual(cardButtons({ card: { ...card, apply: null }, user: player, tracker: t, owns: () => true }), [], "the ruleset names no follow-up");
  const pending = { kind: "approval.requested", seq: 9, pending: "p9" };
  assert.deepEqual(cardButtons({ card: pending, user: gm, tracker: t }).map((b) => b.action), ["approve", "approve-dice", "reject", "reject-reason"]);
  assert.deepEqual(cardButtons({ card: { ...pending, settled: true }, user: gm, tracker: t }), []);
  assert.deepEqual(cardButtons({ card: pending, user: player, tracker: t }), []);
  const html = buttonsHtml(cardButtons({ card: pending, user: gm, tracker: t }), en);
  assert.match(html, /data-rollbridge-action="approve" data-pending="p9">Approve</);
  assert.match(html, />Reject<\/button>/);
  assert.match(html, /class="rb-button rb-reject-reason" data-rollbridge-action="reject-reason" data-pending="p9">Reject with a reason…<\/button>/);
  assert.deepEqual(cardButtons({ card: pending, user: gm, tracker: t, connected: false }), [], "not the active GM's client: none of the three");
  assert.deepEqual(buttonRequest("undo", { card }), { type: "undo" }, "a server that does not say what undo takes");
  assert.deepEqual(buttonRequest("undo", { card, named: true }), { type: "undo", seq: 4 }, "the card's event: refused if not the latest");
  assert.deepEqual(buttonRequest("redo", { card, named: true }), { type: "redo", seq: 4 });
  assert.deepEqual(buttonRequest("approve", { card: pending }), { type: "approve", request: "p9" });
  assert.deepEqual(buttonRequest("apply", { card: { ...card, actor: "tukan" }, targets: ["g2", "g3"] }),
    { type: "resolve", action: "damage", targets: ["g2", "g3"], params: { code: "6M" }, actor: "tukan" });
});

// -- a rendered message, as the two render hooks hand it over -------------------------------------

const rendered = (generation) => {
  const element = new FakeMessageElement();
  // v13: renderChatMessageHTML's HTMLElement; v12: renderChatMessage's jQuery object
  return { element, html: generation >= 13 ? element : new Standin.StandinJQuery([element]) };
};

let client = null;
/** A GM's world joined at `seq`: the events a test sends follow it without a gap. */
async function gmWorld(generation, seq = 0) {
  client?.stop();
  await world({ users: USERS, user: "gm", generation });
  await registerModuleSettings();
  client = new FoundryClient();
  client.start();
  return welcomeClient(client, { role: "gm", seq });
}
after(() => {
  client?.stop();
  Standin.uninstall();
});
const tick = () => new Promise((r) => setImmediate(r));
/** The server's GM-only event of a request `pending` waiting for the GM's approval, received; its chat message. */
async function pendingCard(ws, seq, pending, request) {
  ws.receive({ type: "event", table: "t1", epoch: 1, seq, kind: "approval.requested", gm_only: true, data: { pending, request } });
  await settle(client);
  return Standin.log.messages.at(-1);
}
async function answer(ws, reply) {
  for (let i = 0; i < 50 && ws.messages().at(-1)?.type === "hello"; i++) await tick();
  const request = ws.messages().at(-1);
  ws.receive({ id: request.id, ...reply });
  return request;
}

for (const generation of [12, 13]) {
  test(`v${generation}: the GM's card of a resolution gets undo, then redo after the undo`, async () => {
    const ws = await gmWorld(generation);
    const guard = Standin.addActor({ _id: "fvttGuard0000002", name: "Guard" });
    ws.receive({
      type: "event", table: "t1", epoch: 1, seq: 1, kind: "resolution", request: "r1",
      data: { action: "attack", actor: "tukan", targets: [guard.id], narration: "hit", dice: [] },
      actors: [{ id: guard.id, foundry: { flags: { rollbridge: { actorId: guard.id, seq: 1, limited: false, common: { status: "ok", tracks: [] } } }, systems: {} } }],
      foundry: { rolls: [], speaker: null },
    });
    await settle(client);
    const message = Standin.log.messages.at(-1);
    assert.deepEqual(cardOf(message), { table: "t1", epoch: 1, kind: "resolution", seq: 1, pending: null, apply: null, targets: [guard.id], actor: "tukan", outcome: null, writtenReason: null, gmPosted: true });
    const { element, html } = rendered(generation);
    assert.equal(addButtons(message, html, client), 1);
    assert.match(element.card.buttons.html, /data-rollbridge-action="undo"/);
    element.card.buttons.click("undo");
    const sent = await answer(ws, { type: "result", ok: true, seq: 2 });
    assert.equal(sent.type, "undo");
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 2, kind: "undo", data: { undoes: 1, kind: "resolution" }, actors: [] });
    await settle(client);
    const again = rendered(generation);
    addButtons(message, again.html, client);
    assert.match(again.element.card.buttons.html, /data-rollbridge-action="redo"/);
    assert.doesNotMatch(again.element.card.buttons.html, /"undo"/);
    // a card rendered earlier still shows undo: pressed now, it sends nothing (the server
    // would undo whatever is latest)
    const count = ws.messages().length;
    assert.equal(await press("undo", cardOf(message), client), null);
    assert.equal(ws.messages().length, count);
    assert.ok(Standin.log.notifications.some((n) => n.level === "warn" && n.text.includes(game.i18n.localize("ROLLBRIDGE.Button.NotLatest"))));
  });
}

test("a pending request's GM-only card: approve sends the approval, then its buttons go", async () => {
  const ws = await gmWorld(13, 2);
  const message = await pendingCard(ws, 3, "p3", { type: "resolve", id: "x1", fields: { action: "attack" }, who: { name: "alice", role: "player" } });
  assert.deepEqual(message.whisper, [GM]);
  assert.match(message.content, /alice asks for attack/);
  const { element, html } = rendered(13);
  addButtons(message, html, client);
  assert.match(element.card.buttons.html, /"approve".*"reject"/s);
  const reply = press("approve", cardOf(message), client);
  // as the server answers: the approved request's event, then the brief result
  for (let i = 0; i < 50 && ws.messages().at(-1)?.type !== "approve"; i++) await tick();
  ws.receive({
    type: "event", table: "t1", epoch: 1, seq: 4, kind: "resolution", request: "x1", actors: [],
    data: { action: "attack", approved: "p3", approved_by: "gm:gm" },
  });
  const sent = await answer(ws, { type: "result", ok: true, seq: 4 });
  await reply;
  assert.deepEqual({ ...sent, id: undefined }, { type: "approve", request: "p3", id: undefined });
  const again = rendered(13);
  assert.equal(addButtons(message, again.html, client), 0, "settled");
  // another pending request, approved elsewhere (another GM): its event names it
  const other = await pendingCard(ws, 5, "p5", { type: "roll", id: "x2", fields: { formula: "2d6" }, who: { name: "bob", role: "player" } });
  assert.match(other.content, /bob asks for 2d6/);
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 6, kind: "roll", request: "x2", data: { formula: "2d6", total: 7, approved: "p5" }, actors: [], foundry: { rolls: [] } });
  await settle(client);
  assert.equal(addButtons(other, rendered(13).html, client), 0, "approved elsewhere");
});

test("a pending request's card drawn here loses Approve and Reject once settled: pressed here, or approved elsewhere", async () => {
  const ws = await gmWorld(13, 2);
  const here = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
  const elsewhere = await pendingCard(ws, 4, "p4", { type: "roll", id: "x2", fields: { formula: "1d6" }, who: { name: "bob", role: "player" } });
  for (const message of [here, elsewhere]) assert.equal(addButtons(message, rendered(13).html, client), 4);
  const redrawn = (message) => Standin.log.rendered.filter((r) => r.message === message.id && r.updated).length;
  // pressed here: drawn again, in place, once the server answered
  const reply = press("reject", cardOf(here), client);
  for (let i = 0; i < 50 && ws.messages().at(-1)?.type !== "reject"; i++) await tick();
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 5, kind: "approval.rejected", gm_only: true, data: { pending: "p3" }, actors: [] });
  await answer(ws, { type: "result", ok: true, seq: 5 });
  await reply;
  await settle(client);
  // the outcome kept in the GM's record (the world setting, core/outcomes.mjs), and the
  // card drawn again in place by the module
  const kept = (pending) => keptOutcome(game.settings.get("rollbridge", "outcomes"), { table: "t1", epoch: 1, pending })?.outcome;
  assert.equal(kept("p3"), "rejected");
  assert.equal(redrawn(here), 1);
  assert.equal(addButtons(here, rendered(13).html, client), 0, "as Foundry draws it again: no buttons");
  // approved by another GM (the web view): its event names it
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 6, kind: "roll", request: "x2", data: { formula: "1d6", total: 3, approved: "p4" }, actors: [], foundry: { rolls: [] } });
  await settle(client);
  assert.equal(kept("p4"), "approved");
  assert.equal(redrawn(elsewhere), 1);
  assert.equal(redrawn(here), 1, "the other card is left alone");
  assert.equal(addButtons(elsewhere, rendered(13).html, client), 0);
});

test("a press the server refuses: the notification is the server's message alone; the code goes to the console", async () => {
  const ws = await gmWorld(13, 2);
  const message = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
  Standin.log.notifications.length = 0;
  const lines = [];
  const warn = console.warn;
  console.warn = (...args) => lines.push(args.join(" "));
  try {
    const reply = press("approve", cardOf(message), client);
    await answer(ws, { type: "error", code: "not_pending", message: "Žádost p3 už nečeká na schválení." });
    assert.equal(await reply, null);
  } finally {
    console.warn = warn;
  }
  assert.deepEqual(Standin.log.notifications.map((n) => [n.level, n.text]), [["error", "rollbridge: Žádost p3 už nečeká na schválení."]]);
  assert.deepEqual(lines.filter((l) => l.includes("not_pending")), ["rollbridge | approve refused: not_pending: Žádost p3 už nečeká na schválení."]);
});

test("a plain Approve refused dice_mismatch: the hint to the GM's way on after the server's own refusal alone, never after a ruleset's that shares the code", async () => {
  const ws = await gmWorld(13, 2);
  const hint = game.i18n.localize("ROLLBRIDGE.Button.PlayerDiceUnfit");
  const refused = async (seq, details) => {
    const message = await pendingCard(ws, seq, `p${seq}`, { type: "resolve", id: `x${seq}`, fields: { action: "attack" }, who: { name: "alice", role: "player" } });
    Standin.log.notifications.length = 0;
    const reply = press("approve", cardOf(message), client);
    await answer(ws, { type: "error", code: "dice_mismatch", message: "The dice do not fit.", ...(details ? { details } : {}) });
    assert.equal(await reply, null);
    return Standin.log.notifications.map((n) => [n.level, n.text]);
  };
  assert.deepEqual(await refused(3, null), [["error", `rollbridge: The dice do not fit. ${hint}`]], "the server's own");
  // a ruleset's own check that happens to use the server's code (docs/protocol.md, "Error
  // codes"): until 7 December 2026, late night, the GM was sent to Approve with my dice…
  // or a rejection for a refusal that says nothing of the player's dice
  assert.deepEqual(await refused(4, { origin: "ruleset" }), [["error", "rollbridge: The dice do not fit."]], "a ruleset's");
});

test("a player without a connection applies through the GM's client: on the socket, as a reference to the card; the GM checks the sender's ownership", async () => {
  client?.stop();
  await world({ users: USERS, user: PLAYER, generation: 13, settings: { "rollbridge.token": "" } });
  await registerModuleSettings();
  client = new FoundryClient();
  client.start();
  assert.equal(client.connection, null, "no token: no connection");
  const pc = Standin.addActor({ _id: "fvttPc0000000001", name: "Pc", ownership: { [PLAYER]: 3 } });
  const card = { table: "t1", epoch: 1, kind: "resolution", seq: 5, targets: [pc.id], actor: "orc", apply: { action: "damage", params: { code: "6M" } } };
  const asked = [];
  Standin.queryClient = async (user, name, data) => {
    asked.push({ to: user.id, name, data });
    return { seq: 6 };
  };
  // nothing targeted or selected: a warning, nothing sent
  assert.equal(await press("apply", card, client), null);
  assert.equal(Standin.log.socket.length, 0);
  game.user.targets = new Set([{ actor: pc }]);
  assert.equal(await press("apply", card, client), null, "the socket has no answer");
  assert.deepEqual(asked, [], "not a v13 query: a query handler is not told who asks");
  const relayed = { type: "apply", card: { table: "t1", epoch: 1, seq: 5 }, targets: [pc.id], user: PLAYER };
  assert.deepEqual(Standin.log.socket.map((s) => s.message), [relayed], "the card's reference, not a request");
  // the GM's side: the card's event as its own connection received it
  const ws = await gmWorld(13, 4);
  Standin.addActor({ _id: "fvttPc0000000001", name: "Pc", ownership: { [PLAYER]: 3 } });
  Standin.addActor({ _id: "fvttNpc000000001", name: "Npc" });
  ws.receive({
    type: "event", table: "t1", epoch: 1, seq: 5, kind: "resolution", request: "r5",
    data: { action: "attack", actor: "orc", targets: [pc.id], apply: { action: "damage", params: { code: "6M" } }, dice: [] },
    actors: [], foundry: { rolls: [], speaker: null },
  });
  await settle(client);
  registerRelay((m, o) => client.relayed(m, o)); // as the module's init hook does
  const handler = CONFIG.queries["rollbridge.relay"];
  const count = ws.messages().length;
  assert.equal(await handler(relayed), null, "a query: Foundry does not say who asks");
  assert.equal(await client.relayed({ ...relayed, targets: ["fvttNpc000000001"] }, { sender: PLAYER }), null, "not the player's");
  assert.equal(await client.relayed({ ...relayed, targets: [pc.id, "fvttNpc000000001"] }, { sender: PLAYER }), null, "not all the player's");
  assert.equal(await client.relayed({ ...relayed, card: { table: "t1", epoch: 1, seq: 4 } }, { sender: PLAYER }), null, "no such card");
  assert.equal(ws.messages().length, count, "nothing sent");
  const done = client.relayed(relayed, { sender: PLAYER });
  const sent = await answer(ws, { type: "result", ok: true, seq: 6 });
  assert.deepEqual(await done, { seq: 6 });
  assert.deepEqual({ ...sent, id: undefined }, {
    type: "resolve", action: "damage", targets: ["fvttPc0000000001"], params: { code: "6M" }, actor: "orc", id: undefined,
  });
});

// -- Reject with a reason… (docs/foundry.md, "Approve / reject (GM)") -------------------------------

test("Reject with a reason…: its field, labelled in each language, at most the protocol's 500; the request it makes", async () => {
  assert.equal(REASON_MAX, 500);
  for (const lang of LANGUAGES) {
    const i18n = await localization(lang);
    const html = reasonFormHtml(i18n);
    const label = i18n.localize("ROLLBRIDGE.Button.ReasonField");
    assert.notEqual(label, "ROLLBRIDGE.Button.ReasonField", lang);
    assert.match(html, new RegExp(`<label for="rollbridge-reject-reason">${label.replace(/[()]/g, "\\$&")}</label>`), lang);
    assert.match(html, /<input type="text" id="rollbridge-reject-reason" name="reason" maxlength="500"/);
  }
  assert.equal(reasonOf({ reason: "  not now \n" }), "not now");
  assert.equal(reasonOf(null), "");
  const pending = { kind: "approval.requested", seq: 9, pending: "p9" };
  assert.deepEqual(buttonRequest("reject-reason", { card: pending, reason: " not in this scene " }),
    { type: "reject", request: "p9", reason: "not in this scene" });
  assert.deepEqual(buttonRequest("reject-reason", { card: pending, reason: "   " }), { type: "reject", request: "p9" }, "only spaces: a plain reject");
  assert.deepEqual(cardButtons({ card: pending, user: { isGM: false }, tracker: new UndoTracker() }), [], "never a player's");
});

test("the GM's reason on the settled card: from the rejection's event, as text", () => {
  const approvals = new Approvals();
  approvals.welcome({ pending: [{ pending: "p3" }, { pending: "p4" }] }, 1);
  const rejected = (pending, reason, seq) => ({ kind: "approval.rejected", seq, data: { pending, reason } });
  assert.deepEqual(approvals.see(rejected("p3", "<b>[[1d20]]</b> & @UUID", 5)), ["p3"]);
  assert.equal(approvals.reason("p3"), "<b>[[1d20]]</b> & @UUID");
  assert.deepEqual(approvals.see(rejected("p4", "", 6)), ["p4"]);
  assert.equal(approvals.reason("p4"), null, "the server's \"\": none");
  // settled here first (the reply before the event): the event's reason still redraws the card
  approvals.settle("p5", "rejected");
  assert.deepEqual(approvals.see(rejected("p5", "too late", 7)), ["p5"]);
  assert.deepEqual(approvals.see(rejected("p5", "too late", 7)), [], "known already");
  approvals.welcome({ pending: [] }, 2);
  assert.equal(approvals.reason("p3"), null, "another epoch's p3 is another request");
  const html = buttonsHtml([], en, { settled: "rejected", reason: "<b>[[1d20]]</b> & @UUID" });
  assert.match(html, /<span class="rb-settled" data-settled="rejected">Rejected <span class="rb-reason">\(reason: “&lt;b&gt;\[<span><\/span>\[<span><\/span>1d20\]\]&lt;\/b&gt; &amp; @<span><\/span>UUID”\)<\/span><\/span>/);
  assert.doesNotMatch(buttonsHtml([], en, { settled: "approved", reason: "x" }), /rb-reason/, "only a rejection's");
});

/** Press *Reject with a reason…* on `message`'s card as Foundry `generation` draws it
 * (its four buttons), as a click does: the press (its promise) and the dialog it opens. */
async function pressWithReason(message, generation = 13) {
  const { element, html } = rendered(generation);
  assert.equal(addButtons(message, html, client), 4);
  const open = Standin.log.dialogs.length;
  const pressed = press("reject-reason", cardOf(message), client);
  const dialog = await until(() => Standin.log.dialogs.length > open && Standin.log.dialogs.at(-1), "the reason's dialog");
  return { pressed, dialog, element };
}
/** The requests the client sent since `count`, without their ids. */
const sentSince = (ws, count) => ws.messages().slice(count).map(({ id: _id, ...m }) => m);

for (const generation of [12, 13]) {
  test(`v${generation}: Reject with a reason… sends the trimmed reason; the card then says Rejected and the reason`, async () => {
    const ws = await gmWorld(generation, 2);
    const message = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
    const count = ws.messages().length;
    const { pressed, dialog } = await pressWithReason(message, generation);
    assert.equal(dialog.title, "Reject with a reason");
    assert.deepEqual(dialog.buttons.map((b) => [b.action, b.label, Boolean(b.default)]), [["reject", "Reject", true], ["cancel", "Cancel", false]]);
    assert.deepEqual(dialog.form.elements.map((c) => [c.name, c.attrs.maxlength]), [["reason", "500"]]);
    await dialog.enter({ reason: "  Not in this scene <i>now</i>.  " });
    for (let i = 0; i < 50 && ws.messages().at(-1)?.type !== "reject"; i++) await tick();
    assert.deepEqual(sentSince(ws, count), [{ type: "reject", request: "p3", reason: "Not in this scene <i>now</i>." }]);
    // as the server answers: the rejection's event (with the reason), then the result
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 4, kind: "approval.rejected", gm_only: true, data: { pending: "p3", reason: "Not in this scene <i>now</i>." }, actors: [] });
    await answer(ws, { type: "result", ok: true, seq: 4 });
    await pressed;
    await settle(client);
    assert.deepEqual(keptOutcome(game.settings.get("rollbridge", "outcomes"), { table: "t1", epoch: 1, pending: "p3" }),
      { outcome: "rejected", reason: "Not in this scene <i>now</i>." }, "as after Reject, with the reason");
    const again = rendered(generation);
    assert.equal(addButtons(message, again.html, client), 0, "settled: no button");
    assert.match(again.element.card.shown, /data-settled="rejected">Rejected <span class="rb-reason">\(reason: “Not in this scene &lt;i&gt;now&lt;\/i&gt;\.”\)/);
    assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info"), []);
  });

  test(`v${generation}: Reject with a reason… cancelled or dismissed sends nothing; nothing written sends a plain reject`, async () => {
    const ws = await gmWorld(generation, 2);
    const message = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
    const count = ws.messages().length;
    let { pressed, dialog } = await pressWithReason(message, generation);
    await dialog.submit("cancel", { reason: "written, then cancelled" });
    assert.equal(await pressed, null);
    ({ pressed, dialog } = await pressWithReason(message, generation));
    dialog.escape(); // v12's DialogV2.wait rejects on a dismissal unless told not to
    assert.equal(await pressed, null);
    for (let i = 0; i < 20; i++) await tick();
    assert.deepEqual(sentSince(ws, count), [], "nothing sent");
    assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info"), [], "no error, no warning");
    ({ pressed, dialog } = await pressWithReason(message, generation));
    await dialog.submit("reject", { reason: "   " });
    for (let i = 0; i < 50 && ws.messages().at(-1)?.type !== "reject"; i++) await tick();
    assert.deepEqual(sentSince(ws, count), [{ type: "reject", request: "p3" }]);
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 4, kind: "approval.rejected", gm_only: true, data: { pending: "p3", reason: "" }, actors: [] });
    await answer(ws, { type: "result", ok: true, seq: 4 });
    await pressed;
    await settle(client);
    const again = rendered(generation);
    addButtons(message, again.html, client);
    assert.match(again.element.card.shown, /data-settled="rejected">Rejected<\/span>/, "no reason line");
  });
}

test("Reject with a reason… of a request settled meanwhile: said, as Reject says it, and nothing sent", async () => {
  const ws = await gmWorld(13, 2);
  const message = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
  const count = ws.messages().length;
  const settledNotice = `rollbridge: ${en.localize("ROLLBRIDGE.Button.Settled")}`;
  // approved elsewhere (another GM, the web view) while the dialog is open
  const { pressed, dialog } = await pressWithReason(message);
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 4, kind: "roll", request: "x1", data: { formula: "2d6", total: 7, approved: "p3" }, actors: [], foundry: { rolls: [] } });
  await settle(client);
  await dialog.submit("reject", { reason: "too late" });
  assert.equal(await pressed, null);
  assert.deepEqual(sentSince(ws, count), [], "nothing sent");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info").map((n) => [n.level, n.text]), [["warn", settledNotice]]);
  // a card drawn before it was settled, pressed after: no dialog at all
  const dialogs = Standin.log.dialogs.length;
  assert.equal(await press("reject-reason", cardOf(message), client), null);
  assert.equal(Standin.log.dialogs.length, dialogs, "no dialog");
  assert.deepEqual(sentSince(ws, count), []);
  assert.equal(Standin.log.notifications.filter((n) => n.text === settledNotice).length, 2);
});

test("Reject with a reason… the server answers not_pending: the card says it no longer waits, as after Reject", async () => {
  const ws = await gmWorld(13, 2);
  const message = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
  const { pressed, dialog } = await pressWithReason(message);
  await dialog.submit("reject", { reason: "too late" });
  for (let i = 0; i < 50 && ws.messages().at(-1)?.type !== "reject"; i++) await tick();
  await answer(ws, { type: "error", code: "not_pending", message: "Request p3 is not waiting for approval." });
  assert.equal(await pressed, null);
  await settle(client);
  const again = rendered(13);
  assert.equal(addButtons(message, again.html, client), 0);
  assert.match(again.element.card.shown, /data-settled="settled">No longer waiting for approval</);
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info").map((n) => [n.level, n.text]), [["error", "rollbridge: Request p3 is not waiting for approval."]]);
});

// -- Approve with my dice… (docs/foundry.md, "Approve / reject (GM)") ---------------------------------
// The approve request's `dice` (docs/protocol.md): the GM's own die results, which a
// request the server refuses `held_dice_secret` to a plain Approve needs (a player's own
// dice held for an action that became always secret). Before, the module had no way to
// send them: its Approve sends none.

test("Approve with my dice…: its field, labelled in each language; the results read from it; the request it makes", async () => {
  for (const lang of LANGUAGES) {
    const i18n = await localization(lang);
    const html = diceFormHtml(i18n);
    const label = i18n.localize("ROLLBRIDGE.Button.DiceField");
    assert.notEqual(label, "ROLLBRIDGE.Button.DiceField", lang);
    assert.ok(html.includes(`<label for="rollbridge-approve-dice">${label}</label>`), `${lang}: ${html}`);
    assert.match(html, /<input type="text" id="rollbridge-approve-dice" name="dice" inputmode="numeric"/);
    for (const key of ["ApproveWithDice", "DiceTitle", "DiceSend", "DiceInvalid"]) {
      assert.notEqual(i18n.localize(`ROLLBRIDGE.Button.${key}`), `ROLLBRIDGE.Button.${key}`, `${lang}: ${key}`);
    }
  }
  assert.deepEqual(diceOf({ dice: " 4, 6 2\n" }), [4, 6, 2]);
  assert.deepEqual(diceOf({ dice: "9" }), [9]);
  for (const unreadable of ["", "   ", "4 x", "4.5", "0", "-3", "4;6", "1e3", "99999999999999999999"]) {
    assert.equal(diceOf({ dice: unreadable }), null, JSON.stringify(unreadable));
  }
  assert.equal(diceOf(null), null);
  // as many as the web view sends, no more; numbers of at most 9 digits; ASCII digits only
  const most = Array.from({ length: 1000 }, (_, i) => (i % 6) + 1);
  assert.deepEqual(diceOf({ dice: most.join(" ") }), most, "1000 numbers");
  for (const unreadable of [[...most, 1].join(" "), "6 ".repeat(10_000), "1000000000", "123456789012345",
    "٤ ٦", "４", "६", "\u0034\u0301", "+4", "0x4", "Infinity", "NaN", "4\u200b6"]) {
    assert.equal(diceOf({ dice: unreadable }), null, JSON.stringify(unreadable).slice(0, 40));
  }
  assert.deepEqual(diceOf({ dice: "999999999" }), [999999999], "9 digits: the server says whether it fits");
  const pending = { kind: "approval.requested", seq: 9, pending: "p9" };
  assert.deepEqual(buttonRequest("approve-dice", { card: pending, dice: [4, 6, 2] }), { type: "approve", request: "p9", dice: [4, 6, 2] });
  assert.equal(buttonRequest("approve-dice", { card: pending, dice: [] }), null, "no dice: no request");
  assert.deepEqual(buttonRequest("approve", { card: pending, dice: [4] }), { type: "approve", request: "p9" }, "Approve sends none");
  const html = buttonsHtml(cardButtons({ card: pending, user: { isGM: true }, tracker: new UndoTracker() }), en);
  assert.match(html, /class="rb-button rb-approve-dice" data-rollbridge-action="approve-dice" data-pending="p9">Approve with my dice…<\/button>/);
});

/** Press *Approve with my dice…* on `message`'s card as Foundry `generation` draws it:
 * the press (its promise) and the dialog it opens. */
async function pressWithDice(message, generation = 13) {
  const { html } = rendered(generation);
  assert.equal(addButtons(message, html, client), 4);
  const open = Standin.log.dialogs.length;
  const pressed = press("approve-dice", cardOf(message), client);
  const dialog = await until(() => Standin.log.dialogs.length > open && Standin.log.dialogs.at(-1), "the dice's dialog");
  return { pressed, dialog };
}

for (const generation of [12, 13]) {
  test(`v${generation}: Approve with my dice… sends the GM's dice with the approval; the card then says Approved`, async () => {
    const ws = await gmWorld(generation, 2);
    const message = await pendingCard(ws, 3, "p3", { type: "resolve", id: "x1", fields: { action: "listen", dice: [1] }, who: { name: "alice", role: "player" } });
    const count = ws.messages().length;
    const { pressed, dialog } = await pressWithDice(message, generation);
    assert.equal(dialog.title, "Approve with your own dice");
    assert.deepEqual(dialog.buttons.map((b) => [b.action, b.label, Boolean(b.default)]), [["approve", "Approve", true], ["cancel", "Cancel", false]]);
    assert.deepEqual(dialog.form.elements.map((c) => c.name), ["dice"]);
    await dialog.enter({ dice: " 4, 6 2 " });
    for (let i = 0; i < 50 && ws.messages().at(-1)?.type !== "approve"; i++) await tick();
    assert.deepEqual(sentSince(ws, count), [{ type: "approve", request: "p3", dice: [4, 6, 2] }]);
    ws.receive({ type: "event", table: "t1", epoch: 1, seq: 4, kind: "resolution", request: "x1", gm_only: true, actors: [],
      data: { action: "listen", approved: "p3", approved_by: "gm:gm" } });
    await answer(ws, { type: "result", ok: true, seq: 4 });
    await pressed;
    await settle(client);
    const again = rendered(generation);
    assert.equal(addButtons(message, again.html, client), 0, "settled: no button");
    assert.match(again.element.card.shown, /data-settled="approved">Approved</);
    assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info"), []);
  });
}

test("Approve with my dice… cancelled, dismissed or with what are not die results sends nothing; the GM is told which", async () => {
  const ws = await gmWorld(13, 2);
  const message = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
  const count = ws.messages().length;
  let { pressed, dialog } = await pressWithDice(message);
  await dialog.submit("cancel", { dice: "4 3" });
  assert.equal(await pressed, null);
  ({ pressed, dialog } = await pressWithDice(message));
  dialog.escape();
  assert.equal(await pressed, null);
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info"), [], "no error, no warning");
  ({ pressed, dialog } = await pressWithDice(message));
  await dialog.enter({ dice: "4 three" });
  assert.equal(await pressed, null);
  for (let i = 0; i < 20; i++) await tick();
  assert.deepEqual(sentSince(ws, count), [], "nothing sent");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info").map((n) => [n.level, n.text]),
    [["warn", `rollbridge: ${en.localize("ROLLBRIDGE.Button.DiceInvalid")}`]]);
  assert.equal(addButtons(message, rendered(13).html, client), 4, "still waiting: its buttons kept");
});

test("Approve with my dice… of a request settled while the dialog was open: said, and nothing sent", async () => {
  const ws = await gmWorld(13, 2);
  const message = await pendingCard(ws, 3, "p3", { type: "roll", id: "x1", fields: { formula: "2d6" }, who: { name: "alice", role: "player" } });
  const count = ws.messages().length;
  const { pressed, dialog } = await pressWithDice(message);
  ws.receive({ type: "event", table: "t1", epoch: 1, seq: 4, kind: "approval.rejected", gm_only: true, data: { pending: "p3", reason: "" }, actors: [] });
  await settle(client);
  await dialog.enter({ dice: "4 3" });
  assert.equal(await pressed, null);
  assert.deepEqual(sentSince(ws, count), [], "nothing sent");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level !== "info").map((n) => [n.level, n.text]),
    [["warn", `rollbridge: ${en.localize("ROLLBRIDGE.Button.Settled")}`]]);
});
