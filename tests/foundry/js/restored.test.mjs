// A table restored from a backup goes on in a new epoch from the backup's seq: the
// events of the old epoch after it are undone, but their cards stay in the world's
// chat. The active GM's client, at its snapshot welcome of the new epoch, flags each
// such card (`undoneBy`: the epoch that undid it), and every client draws a flagged
// card faded with a note in its user's language (foundry/restored.mjs, from both
// render hooks). A player's client writes nothing (docs/foundry.md, "A restored table").

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { epochRecord, judged, markUndoneByRestore, MISSED_CARDS, missedSinceRestore, undoneByRestore } from "../../../adapters/foundry/module/scripts/foundry/restored.mjs";
import { markUndone } from "../../../adapters/foundry/module/scripts/foundry/undone.mjs";
import { drawMessages } from "./elements.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];
const [GM, PLAYER] = USERS.map((u) => u._id);
let client = null;
after(() => {
  client?.stop();
  Standin.uninstall();
});

/** A card of event `seq` of epoch `epoch` (table t1) as the GM's client posted it. */
const card = (epoch, seq, author = GM, table = "t1") => ({
  content: `<div class="rollbridge-card" data-epoch="${epoch}" data-seq="${seq}">#${seq}</div>`,
  author, flags: { rollbridge: { table, epoch, seq, kind: seq % 2 ? "roll" : "resolution", view: "players" } },
});

/** The page's document as far as restored.mjs reads it (Node has no DOM). */
const pageDocument = () => ({
  createElement: (tag) => ({ tagName: tag, className: "", dataset: {}, textContent: "" }),
  getElementById: () => null,
});

/**
 * A page of `user` (v`generation`, language `lang`) whose chat holds `cards`
 * ([epoch, seq, author?, table?]), its render hook the module's mark, welcomed as
 * `role` in epoch 2000 at seq `seq` (a snapshot: a restore). Returns {elements, ws}.
 */
async function restoredPage({ generation, user = GM, role = "gm", lang = "en", cards, seq, epoch = 2000, epochs, flagged = [] }) {
  client?.stop();
  await world({ users: USERS, user, generation, lang });
  await registerModuleSettings();
  globalThis.document = pageDocument();
  const elements = drawMessages(generation, markUndoneByRestore);
  for (const [at, n, author = GM, table = "t1"] of cards) {
    const data = card(at, n, author, table);
    const mark = flagged.find(([e, s]) => e === at && s === n);
    if (mark) data.flags.rollbridge.undoneBy = mark[2];
    await ChatMessage._fromWorld({ data, user: author });
  }
  client = new FoundryClient();
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({
    type: "welcome", id: hello.id, protocol: 1, role, epoch, seq, locale: lang,
    resume: { recovered: false }, table: { id: "t1", actors: [] }, ...(epochs ? { epochs } : {}),
  });
  await settle(client);
  return { elements, ws };
}

/** The note drawn under the card of `epoch`/`seq` (null when none; its card faded alike). */
function note(elements, epoch, seq) {
  const message = game.messages.contents.find((m) => m.flags.rollbridge.epoch === epoch && m.flags.rollbridge.seq === seq);
  const shown = elements.get(message.id);
  const found = shown.querySelector(".rollbridge-restored-note");
  assert.equal(Boolean(found), shown.card.classList.has("rollbridge-restored"), `#${seq}: faded exactly when noted`);
  return found ? found.textContent : null;
}

const WORDS = "undone by a restore: the table went back to an earlier point (a backup restored), so this no longer stands";

for (const generation of [12, 13]) {
  test(`v${generation}: a restore's welcome marks the cards of the events after the backup, on every client`, async () => {
    // epoch 1 went to #6; the backup held #4; the restored table (epoch 2000) already
    // went on to #5 and #6 of its own before this page's connection (their cards posted
    // by the GM's client then: the earliest says where the epoch began, the welcome's
    // seq being 6), and a player's card of epoch 1 #6 (no GM then) is undone too
    const cards = [[1, 3], [1, 4], [1, 5], [1, 6, PLAYER], [1, 5, GM, "other-table"], [2000, 5], [2000, 6]];
    const { elements, ws } = await restoredPage({ generation, cards, seq: 6 });
    assert.equal(note(elements, 1, 3), null, "#3 is in the backup: it stands");
    assert.equal(note(elements, 1, 4), null, "#4 is in the backup: it stands");
    assert.equal(note(elements, 1, 5), WORDS, "#5 of epoch 1 was undone by the restore");
    assert.equal(note(elements, 1, 6), WORDS, "a player's card of an undone event too");
    assert.equal(note(elements, 2000, 5), null, "the new epoch's cards stand");
    assert.equal(note(elements, 2000, 6), null, "the new epoch's cards stand");
    const other = game.messages.contents.find((m) => m.flags.rollbridge.table === "other-table");
    assert.equal(other.flags.rollbridge.undoneBy, undefined, "another table's card is left");
    const writes = Standin.log.messageUpdates.map((u) => [game.messages.get(u.message).flags.rollbridge.seq, u.user]);
    assert.deepEqual(writes, [[5, GM], [6, GM]], "the GM's client flagged the two cards, once each");
    assert.deepEqual(ws.messages().map((m) => m.type), ["hello"], "nothing sent");

    // a reload: its welcome (the same epoch) flags nothing again
    const before = Standin.log.messageUpdates.length;
    assert.deepEqual(undoneByRestore(game.messages.contents, { table: "t1", epoch: 2000, seq: 6 }), [], "nothing left to flag");
    assert.equal(Standin.log.messageUpdates.length, before);
  });

  test(`v${generation}: a player's client writes nothing and draws the flagged card in its own language`, async () => {
    const { elements } = await restoredPage({ generation, user: PLAYER, role: "player", lang: "de", cards: [[1, 2], [1, 3]], seq: 2 });
    assert.deepEqual(Standin.log.messageUpdates, [], "a player's client flags nothing");
    assert.equal(note(elements, 1, 3), null);
    // the GM's flag reaches the player's world (updateChatMessage): the card is drawn again, marked
    const message = game.messages.contents.find((m) => m.flags.rollbridge.seq === 3);
    message.flags.rollbridge.undoneBy = 2000;
    await message._updated({ flags: { rollbridge: { undoneBy: 2000 } } }, {}, GM);
    assert.match(note(elements, 1, 3), /^durch eine Wiederherstellung rückgängig gemacht/);
    assert.equal(note(elements, 1, 2), null);
  });

  test(`v${generation}: a player's forged card of the new epoch with a low seq marks nothing that stands`, async () => {
    const { elements } = await restoredPage({ generation, cards: [[1, 2], [1, 3], [2000, 1, PLAYER]], seq: 3 });
    assert.equal(note(elements, 1, 2), null);
    assert.equal(note(elements, 1, 3), null);
  });

  test(`v${generation}: a welcome that says where the epoch began marks the cards the guess left`, async () => {
    // the backup held #4 of epoch 1; the restored table (epoch 2000) went on to #7 with
    // no GM's client (no card of it): the guess took the welcome's seq (7) and left #5
    // to #7 of epoch 1 standing; the welcome's record says epoch 2000 began at #4
    const cards = [[1, 3], [1, 4], [1, 5], [1, 6], [1, 7], [1, 8, PLAYER]];
    const epochs = [{ epoch: 1, from: 0 }, { epoch: 2000, from: 4 }];
    const { elements } = await restoredPage({ generation, cards, seq: 7, epochs });
    assert.equal(note(elements, 1, 3), null, "#3 is in the backup: it stands");
    assert.equal(note(elements, 1, 4), null, "#4 is in the backup: it stands");
    for (const seq of [5, 6, 7, 8]) assert.equal(note(elements, 1, seq), WORDS, `#${seq} of epoch 1 was undone`);
    const flags = game.messages.contents.map((m) => m.flags.rollbridge.undoneBy);
    assert.deepEqual(flags, [undefined, undefined, 2000, 2000, 2000, 2000]);
  });

  test(`v${generation}: a later restore of a later backup takes the mark off the cards that stand again`, async () => {
    // epoch 1 went to #8; a restore of its backup at #4 began epoch 2000 (which went to
    // #6) and marked #5 to #8 of epoch 1; now a backup of epoch 1 taken at #7 is
    // restored (epoch 3000): #5 to #7 of epoch 1 stand again, #8 and epoch 2000's
    // cards are undone (#8 keeps the mark the first restore gave it)
    const cards = [[1, 4], [1, 5], [1, 6], [1, 7], [1, 8], [2000, 5], [2000, 6]];
    const flagged = [[1, 5, 2000], [1, 6, 2000], [1, 7, 2000], [1, 8, 2000]];
    const epochs = [{ epoch: 1, from: 0 }, { epoch: 3000, from: 7 }];
    const { elements } = await restoredPage({ generation, cards, seq: 7, epoch: 3000, epochs, flagged });
    for (const seq of [4, 5, 6, 7]) assert.equal(note(elements, 1, seq), null, `#${seq} of epoch 1 stands again`);
    assert.equal(note(elements, 1, 8), WORDS, "#8 of epoch 1 is still undone");
    assert.equal(note(elements, 2000, 5), WORDS, "the gone epoch's cards are undone");
    assert.equal(note(elements, 2000, 6), WORDS, "the gone epoch's cards are undone");
    const undone = Object.fromEntries(game.messages.contents.map((m) => [`${m.flags.rollbridge.epoch}#${m.flags.rollbridge.seq}`, m.flags.rollbridge.undoneBy]));
    assert.deepEqual(undone, { "1#4": undefined, "1#5": undefined, "1#6": undefined, "1#7": undefined, "1#8": 2000, "2000#5": 3000, "2000#6": 3000 });
    // the GM's client wrote each change once: a reload's welcome changes nothing
    const before = Standin.log.messageUpdates.length;
    assert.equal(before, 5);
    assert.deepEqual(undoneByRestore(game.messages.contents, { table: "t1", epoch: 3000, seq: 7, epochs }), []);
  });
}

test("a record the module cannot read is no record (the guess is used), and what it cannot tell is left", () => {
  assert.equal(epochRecord(undefined, 5), null);
  assert.equal(epochRecord([], 5), null);
  assert.equal(epochRecord([{ epoch: 1, from: 0 }, { epoch: 4, from: 3 }], 5), null, "of another epoch: a fence since");
  assert.equal(epochRecord([{ epoch: 1, from: 0 }, { epoch: 5, from: null }], 5), null, "a later start unknown");
  assert.equal(epochRecord([{ epoch: 1, from: 6 }, { epoch: 5, from: 3 }], 5), null, "starts going back");
  assert.equal(epochRecord([{ epoch: "1", from: 0 }, { epoch: 5, from: 3 }], 5), null);
  assert.equal(epochRecord([{ epoch: 1, from: -1 }, { epoch: 5, from: 3 }], 5), null);
  const unknownStart = epochRecord([{ epoch: 1, from: null }, { epoch: 5, from: 10 }], 5);
  assert.ok(unknownStart);
  assert.equal(judged(unknownStart, { epoch: 1, seq: 4 }), "stands");
  assert.equal(judged(unknownStart, { epoch: 7, seq: 4 }), "unknown", "another epoch below the first's start, not known");
  assert.equal(judged(unknownStart, { epoch: 7, seq: 11 }), "undone");
  assert.equal(judged(unknownStart, { epoch: 1, seq: 11 }), "undone");
  assert.equal(judged(unknownStart, { epoch: 5, seq: 11 }), "stands");
  assert.equal(judged(unknownStart, { seq: 11 }), "unknown", "a card without an epoch (an older module's)");
});

test("the restored epoch's events a GM's card may lack: from the epoch's start or its latest GM's card", () => {
  const msg = (epoch, seq, author = GM, table = "t1") => card(epoch, seq, author, table);
  const epochs = [{ epoch: 1, from: 0 }, { epoch: 2000, from: 4 }];
  const welcome = { table: "t1", epoch: 2000, seq: 9, epochs };
  const byGM = (m) => m.author === GM;
  // the world played the table before the restore: the events after #4 to the welcome's #9
  assert.deepEqual(missedSinceRestore([msg(1, 3), msg(1, 5)], welcome, byGM), { from: 4, to: 9 });
  // the GM's cards of the new epoch up to #7 are there: only #8 and #9
  assert.deepEqual(missedSinceRestore([msg(1, 3), msg(2000, 6), msg(2000, 7)], welcome, byGM), { from: 7, to: 9 });
  // a player's card of the new epoch moves nothing (a forged high seq would hide events)
  assert.deepEqual(missedSinceRestore([msg(1, 3), msg(2000, 9, PLAYER)], welcome, byGM), { from: 4, to: 9 });
  assert.equal(missedSinceRestore([msg(1, 3), msg(2000, 9)], welcome, byGM), null, "all there");
  // a world that never played the table (a new world): none, not the whole epoch
  assert.equal(missedSinceRestore([msg(1, 3, GM, "other")], welcome, byGM), null);
  assert.equal(missedSinceRestore([msg(1, 3)], { ...welcome, epochs: undefined }, byGM), null, "no record: no restore known");
  // the newest MISSED_CARDS at most
  const long = { ...welcome, seq: 4 + MISSED_CARDS + 30 };
  assert.deepEqual(missedSinceRestore([msg(1, 3)], long, byGM), { from: long.seq - MISSED_CARDS, to: long.seq });
});

// An undo's change stays in the world's chat as its card; the GM's card shows *Redo*
// (buttons.mjs), a player's nothing. The active GM's client flags the GM's cards of the
// undone event (`undoneAt`: the undo's seq) and takes the flag off at its redo; every
// client draws a flagged card faded with a note in its user's language
// (foundry/undone.mjs, from both render hooks). A player's client writes nothing, and
// a player's own card flagged so is not marked (docs/foundry.md, "Buttons on the card").
// Found walking a wilddie scene (tests/foundry/live/wildwalk.mjs): the players' card
// said the thug was out of the fight after the GM had undone the damage.

/** A page of `user` (v`generation`, language `lang`) whose chat holds the cards of
 * `cards` ([seq, author?]), welcomed as `role` at seq 6 (a snapshot, epoch 1). */
async function undonePage({ generation, user = GM, role = "gm", lang = "en", cards }) {
  client?.stop();
  await world({ users: USERS, user, generation, lang });
  await registerModuleSettings();
  globalThis.document = pageDocument();
  const elements = drawMessages(generation, markUndone);
  for (const [seq, author = GM] of cards) await ChatMessage._fromWorld({ data: card(1, seq, author), user: author });
  client = new FoundryClient();
  client.start();
  const ws = FakeWebSocket.last();
  ws.open();
  const hello = ws.messages().find((m) => m.type === "hello");
  ws.receive({ type: "welcome", id: hello.id, protocol: 1, role, epoch: 1, seq: 6, locale: lang,
    resume: { recovered: false }, table: { id: "t1", actors: [] } });
  await settle(client);
  return { elements, ws };
}

const event = (kind, seq, moved) => ({ type: "event", table: "t1", kind, epoch: 1, seq, by: "gm",
  data: kind === "undo" ? { undoes: moved } : { redoes: moved }, actors: [] });

/** The undone note under the card of `seq` by `author` (null when none; its card faded alike). */
function undoneNote(elements, seq, author = GM) {
  const message = game.messages.contents.find((m) => m.flags.rollbridge.seq === seq && (m.author?.id ?? m.author) === author);
  const shown = elements.get(message.id);
  const found = shown.querySelector(".rollbridge-undone-note");
  assert.equal(Boolean(found), shown.card.classList.has("rollbridge-undone"), `#${seq}: faded exactly when noted`);
  return found ? found.textContent : null;
}

for (const generation of [12, 13]) {
  test(`v${generation}: an undo marks the undone change's card on every client, a redo takes the mark off`, async () => {
    const { elements, ws } = await undonePage({ generation, cards: [[5], [6]] });
    ws.receive(event("undo", 7, 6));
    await settle(client);
    assert.equal(undoneNote(elements, 6), "undone by the GM: this no longer stands");
    assert.equal(undoneNote(elements, 5), null, "the change before it stands");
    assert.equal(game.messages.contents.find((m) => m.flags.rollbridge.seq === 6).flags.rollbridge.undoneAt, 7);
    const writes = () => Standin.log.messageUpdates.map((u) => [game.messages.get(u.message).flags.rollbridge.seq, u.user]);
    assert.deepEqual(writes(), [[6, GM]], "the GM's client flagged the card, once");
    ws.receive(event("redo", 8, 6));
    await settle(client);
    const redone = game.messages.contents.find((m) => m.flags.rollbridge.seq === 6);
    assert.equal(redone.flags.rollbridge.undoneAt, undefined, "a redo takes the flag off");
    assert.deepEqual(writes(), [[6, GM], [6, GM]]);
    assert.deepEqual(ws.messages().map((m) => m.type), ["hello"], "nothing sent");
  });

  test(`v${generation}: a player's client writes nothing and draws the GM's flag in its own language`, async () => {
    const { elements, ws } = await undonePage({ generation, user: PLAYER, role: "player", lang: "de", cards: [[6], [6, PLAYER]] });
    ws.receive(event("undo", 7, 6));
    await settle(client);
    assert.deepEqual(Standin.log.messageUpdates, [], "a player's client flags nothing");
    assert.equal(undoneNote(elements, 6), null);
    // the GM's flag reaches the player's world (updateChatMessage): drawn again, marked
    const message = game.messages.contents.find((m) => m.flags.rollbridge.seq === 6 && (m.author?.id ?? m.author) === GM);
    message.flags.rollbridge.undoneAt = 7;
    await message._updated({ flags: { rollbridge: { undoneAt: 7 } } }, {}, GM);
    assert.equal(undoneNote(elements, 6), "vom Spielleiter rückgängig gemacht: das gilt nicht mehr");
    // a player's own card with the flag (a player may write its own card's flags) is not marked
    const own = game.messages.contents.find((m) => m.flags.rollbridge.seq === 6 && (m.author?.id ?? m.author) === PLAYER);
    own.flags.rollbridge.undoneAt = 7;
    await own._updated({ flags: { rollbridge: { undoneAt: 7 } } }, {}, PLAYER);
    assert.equal(undoneNote(elements, 6, PLAYER), null);
  });
}
