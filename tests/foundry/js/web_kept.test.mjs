// What the web view keeps across a language's reload (core/server/webui/kept.mjs and
// the one-reload token of session.mjs), against a stand-in of the tab's
// sessionStorage: lines come back once, as message ids and event seqs said in the
// page's language now; what is not a line (HTML, a key of another kind, a huge
// value) is left out; a token kept for one reload is gone once taken.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  formsFor, keepForms, keepLines, keptLine, lineText, takeForms, takeLines,
} from "../../../core/server/webui/kept.mjs";
import { keepTokenOnce, rememberedToken, takeTokenOnce } from "../../../core/server/webui/session.mjs";

/** A stand-in of the Web Storage API (getItem, setItem, removeItem). */
function storage() {
  const items = new Map();
  return {
    items,
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem: (key, value) => items.set(key, String(value)),
    removeItem: (key) => items.delete(key),
  };
}

const texts = {
  format: (key, data = {}) => `${key}|${JSON.stringify(data)}`,
};

test("lines are kept as ids and seqs, taken back once", () => {
  const tab = storage();
  const approved = { key: "ROLLBRIDGE.Web.Message.Approved", seq: 7 };
  const pending = { key: "ROLLBRIDGE.Web.Message.Pending", data: { pending: "p3" } };
  assert.equal(keepLines("web", { message: approved, forms: { roll: pending, "action:attack": { seq: 9 } },
    asked: [["p3", "roll"]] }, tab), "kept");
  const taken = takeLines("web", tab);
  assert.deepEqual(taken.asked, [["p3", "roll", null]]); // kept without the request sent
  assert.deepEqual(Object.keys(taken.forms), ["roll", "action:attack"]);
  assert.equal(tab.items.size, 0); // for one load only
  assert.deepEqual(takeLines("web", tab), { message: null, forms: {}, asked: [], answered: [], focus: null,
    epoch: null, identity: null, keeper: null });
  assert.equal(taken.focus, null, "the list had no focus: none given back");
  // the language list had the focus: the page loaded anew gives it back; nothing else is
  for (const [focus, back] of [["language", "language"], ["join-token", null], [{ x: 1 }, null]]) {
    keepLines("web", { message: null, forms: {}, asked: [], focus }, tab);
    assert.equal(takeLines("web", tab).focus, back, JSON.stringify(focus));
  }
  // said in the page's words now; one naming an event waits for it
  const summaries = new Map([[7, "Rook — 2d6 [3, 4] = 7"]]);
  const summaryOf = (seq) => summaries.get(seq) ?? null;
  assert.equal(lineText(taken.message, texts, summaryOf),
    'ROLLBRIDGE.Web.Message.Approved|{"result":"Rook — 2d6 [3, 4] = 7"}');
  assert.equal(lineText(taken.forms.roll, texts, summaryOf), 'ROLLBRIDGE.Web.Message.Pending|{"pending":"p3"}');
  assert.equal(lineText(taken.forms["action:attack"], texts, summaryOf), null);
  summaries.set(9, "a hit");
  assert.equal(lineText(taken.forms["action:attack"], texts, summaryOf), "a hit");
});

test("a line whose event is further back than the page's log names it by its number", () => {
  // the GM approved a roll, then the evening went on past the 200 events the page
  // loads from before it joins: after a reload the event is not coming, and the
  // line (a message line, a form's) vanished
  const tab = storage();
  keepLines("web", { message: { key: "ROLLBRIDGE.Web.Message.Approved", seq: 7 },
    forms: { roll: { key: "ROLLBRIDGE.Web.Message.Approved", seq: 7 }, "action:attack": { seq: 9 } }, asked: [] }, tab);
  const taken = takeLines("web", tab);
  const summaryOf = () => null;
  assert.equal(lineText(taken.message, texts, summaryOf), null, "it may still come");
  for (const line of [taken.message, taken.forms.roll, taken.forms["action:attack"]]) line.gone = true;
  const earlier = (seq) => `ROLLBRIDGE.Web.Message.Earlier|{"seq":${seq}}`;
  assert.equal(lineText(taken.message, texts, summaryOf),
    `ROLLBRIDGE.Web.Message.Approved|${JSON.stringify({ result: earlier(7) })}`);
  assert.equal(lineText(taken.forms.roll, texts, summaryOf),
    `ROLLBRIDGE.Web.Message.Approved|${JSON.stringify({ result: earlier(7) })}`);
  assert.equal(lineText(taken.forms["action:attack"], texts, summaryOf), earlier(9));
  // known after all: its summary, as any line's
  assert.equal(lineText(taken.forms["action:attack"], texts, () => "a hit"), "a hit");
  // `gone` is the page's note, never what the tab kept
  keepLines("web", { message: { seq: 7, gone: true }, forms: {}, asked: [] }, tab);
  assert.equal(takeLines("web", tab).message.gone, undefined);
});

test("what is not a line is left out", () => {
  for (const value of [null, "text", { key: "<img src=x>" }, { key: "Other.Key" }, { seq: -1 }, { seq: 1.5 }]) {
    assert.equal(keptLine(value), null, JSON.stringify(value));
  }
  const line = keptLine({ key: "ROLLBRIDGE.Web.Message.Rejected", data: { a: "x", b: 2, c: { no: 1 }, "d e": "no" },
    kind: "weird", code: "<b>" });
  assert.deepEqual(line, { key: "ROLLBRIDGE.Web.Message.Rejected", data: { a: "x", b: 2 }, seq: null, kind: "info",
    code: "", undone: false });
  const tab = storage();
  for (const kept of ["not json", "[1, 2]", JSON.stringify({ forms: { roll: "x" }, asked: [[1, 2], "p1"] }),
    "x".repeat(30_000)]) {
    tab.setItem("rollbridge.lines.web", kept);
    assert.deepEqual(takeLines("web", tab), { message: null, forms: {}, asked: [], answered: [], focus: null,
      epoch: null, identity: null, keeper: null }, kept.slice(0, 40));
    assert.equal(tab.items.size, 0);
  }
});

test("a token kept for one reload is gone once taken, and is not the tab's joined token", () => {
  const tab = storage();
  keepTokenOnce("web", "rbt_typed", tab);
  assert.equal(rememberedToken("web", tab), null);
  assert.equal(takeTokenOnce("web", tab), "rbt_typed");
  assert.equal(takeTokenOnce("web", tab), null);
  assert.equal(tab.items.size, 0);
});

test("what was typed in the forms comes back once, for the same identity, never a token", () => {
  const tab = storage();
  const token = "rbt_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg";
  const roll = { values: [{ name: "formula", value: "3d6" }, { name: "label", value: `mine ${token}` },
    { name: "secret", value: "on", checked: true }], open: [],
    focus: { name: "formula", value: "3d6", caret: [3, 3] } };
  const attack = { values: [{ name: "note", value: "a typed-in rba_ZZZZZZZZZZZZ admin token" },
    { name: "skill", value: "5" }, { name: "weird", value: { no: 1 } }, { name: "<b>", value: "x" }], open: [true] };
  assert.equal(keepForms("web", "player:alice", { action: "attack", forms: { roll, "action:attack": attack,
    "<img>": roll }, odds: ["roll", "x y"] }, ["joined-secret"], tab), "kept");
  assert.ok(![...tab.items.values()].some((value) => value.includes(token) || value.includes("rba_")));
  const kept = takeForms("web", tab);
  assert.equal(tab.items.size, 0); // for one load only
  assert.deepEqual(takeForms("web", tab), { identity: null, action: null, forms: {}, odds: [], reasons: [], keeper: null,
    cut: false });
  assert.deepEqual(formsFor(kept, "player:alice"), {
    identity: "player:alice",
    action: "attack",
    forms: {
      roll: { values: [{ name: "formula", value: "3d6" }, { name: "secret", value: "on", checked: true }], open: [] },
      "action:attack": { values: [{ name: "skill", value: "5" }], open: [true] },
    },
    odds: ["roll"],
    reasons: [],
    keeper: null,
    cut: false,
  });
  // another identity (the tab joined with another token after the reload) gets none
  assert.equal(formsFor(kept, "gm:gm"), null);
  assert.equal(formsFor(kept, null), null);
  // a value holding one of the page's own tokens, whatever its form
  keepForms("web", "player:alice", { forms: { roll: { values: [{ name: "label", value: "a joined-secret b" }] } } },
    ["joined-secret"], tab);
  assert.deepEqual(takeForms("web", tab).forms.roll.values, []);
  for (const bad of ["not json", "[1]", JSON.stringify({ forms: { roll: {} } }), "x".repeat(30_000)]) {
    tab.setItem("rollbridge.forms.web", bad);
    assert.equal(formsFor(takeForms("web", tab), "player:alice"), null, bad.slice(0, 40));
    assert.equal(tab.items.size, 0);
  }
});

test("an action's and its parameters' names in another language are kept as any", () => {
  // a ruleset's action and parameter names are its author's (any text): a Czech
  // author's `útok` with `zbraň`, a name with a space; they were left out, the
  // action chosen and all it held lost across the reload
  const tab = storage();
  const attack = { values: [{ name: "zbraň", value: "Hackler" }, { name: "krytí za zdí", value: "ano" }],
    open: [true] };
  assert.equal(keepForms("web", "player:alice", { action: "útok", forms: { "action:útok": attack },
    odds: ["action:útok"] }, [], tab), "kept");
  const kept = takeForms("web", tab);
  assert.equal(kept.action, "útok");
  assert.deepEqual(kept.forms["action:útok"], attack);
  assert.deepEqual(kept.odds, ["action:útok"]);
  // what is no form's key or name is still left out
  tab.setItem("rollbridge.forms.web", JSON.stringify({ identity: "player:alice", action: "x".repeat(101),
    forms: { "action:": attack, other: attack, roll: { values: [{ name: "", value: "a" }, { name: 3, value: "b" }] } },
    odds: ["action:", 7] }));
  assert.deepEqual(takeForms("web", tab), { identity: "player:alice", action: null,
    forms: { roll: { values: [], open: [] } }, odds: [], reasons: [], keeper: null, cut: false });
});

test("past the tab's share the shown forms and the reasons are kept first, as much as fits, and it says so", () => {
  // a form of twelve notes of 1,900 letters and three reasons of 500: the shown
  // forms and the reasons alone pass 20,000 characters, and nothing was kept
  const tab = storage();
  const notes = Array.from({ length: 12 }, (_, i) => ({ name: `note${i}`, value: String(i % 10).repeat(1_900) }));
  const reasons = [1, 2, 3].map((n) => [1, `p${n}`, "r".repeat(500)]);
  const older = { values: [{ name: "note", value: "older" }], open: [] };
  assert.equal(keepForms("web", "gm:gm", { action: "plan", shown: ["roll", "action:plan"], reasons,
    forms: { "action:older": older, roll: { values: [{ name: "formula", value: "3d6" }], open: [] },
      "action:plan": { values: notes, open: [true] } }, odds: [] }, [], tab), "kept");
  assert.ok(tab.items.get("rollbridge.forms.web").length <= 20_000);
  const kept = takeForms("web", tab);
  assert.equal(kept.cut, true);
  assert.equal(kept.action, "plan");
  assert.deepEqual(kept.reasons, reasons);
  assert.deepEqual(kept.forms.roll.values, [{ name: "formula", value: "3d6" }]);
  const plan = kept.forms["action:plan"];
  assert.deepEqual(plan.open, [true]);
  assert.ok(plan.values.length > 0 && plan.values.length < notes.length, plan.values.length);
  assert.deepEqual(plan.values, notes.slice(0, plan.values.length)); // none cut in the middle
  // the shown last of all, as before: the older draft fits the room the next note did not
  assert.deepEqual(Object.keys(kept.forms), ["action:older", "roll", "action:plan"]);
  // all fitting: nothing left out, nothing said
  keepForms("web", "gm:gm", { action: "plan", shown: ["action:plan"], reasons,
    forms: { "action:plan": { values: notes.slice(0, 2), open: [] } }, odds: [] }, [], tab);
  assert.equal(takeForms("web", tab).cut, false);
});

test("a value too long to keep, or a form's values past the most kept, is left out and it says so", () => {
  // a JSON list typed in a field, past 2,000 characters: left out whatever the room,
  // and the page loaded anew said nothing of it
  const tab = storage();
  const long = { name: "dice", value: `[${"6,".repeat(1_200)}6]` };
  keepForms("web", "player:alice", { action: "attack", shown: ["action:attack"], odds: [],
    forms: { "action:attack": { values: [{ name: "weapon", value: "axe" }, long], open: [] } } }, [], tab);
  const kept = takeForms("web", tab);
  assert.deepEqual(kept.forms["action:attack"].values, [{ name: "weapon", value: "axe" }]);
  assert.equal(kept.cut, true);
  const many = Array.from({ length: 101 }, (_, i) => ({ name: `n${i}`, value: "x" }));
  keepForms("web", "player:alice", { action: "attack", shown: [], odds: [], forms: { "action:attack": { values: many } } },
    [], tab);
  assert.equal(takeForms("web", tab).cut, true);
  // a token left out is never kept, by design: nothing to say of it
  keepForms("web", "player:alice", { action: "attack", shown: ["action:attack"], odds: [],
    forms: { "action:attack": { values: [{ name: "weapon", value: "rbt_SECRETsecretSECRET" }], open: [] } } }, [], tab);
  assert.equal(takeForms("web", tab).cut, false);
});

test("the GM's reasons being written come back once with the forms, never a token or what is not one", () => {
  const tab = storage();
  const reasons = [[7, "p3", "not in this scene"], [7, "p4", ""], [7, "p5", "rbt_AbCdEfGhIjKlMnOpQrStUvWxYz0123"],
    [7, "p6", "has joined-secret in it"], [7, "<p7>", "x"], [7, "p8", 7], [7, "p9", "y".repeat(501)], "p10",
    [7, "p11", "zbraň ✓"]];
  assert.equal(keepForms("web", "gm:gm", { action: null, forms: {}, odds: [], reasons }, ["joined-secret"], tab), "kept");
  assert.ok(![...tab.items.values()].some((value) => value.includes("rbt_") || value.includes("joined-secret")));
  const kept = formsFor(takeForms("web", tab), "gm:gm");
  assert.deepEqual(kept.reasons, [[7, "p3", "not in this scene"], [7, "p4", ""], [7, "p11", "zbraň ✓"]]);
  // what the tab's storage holds is read as strictly as what the page kept
  tab.setItem("rollbridge.forms.web", JSON.stringify({ identity: "gm:gm", forms: {}, reasons: [[7, "p1", "ok"],
    [7, "p2", { x: 1 }], [7, "p3", "rba_ZZZZZZZZZZZZ"]] }));
  assert.deepEqual(takeForms("web", tab).reasons, [[7, "p1", "ok"]]);
  tab.setItem("rollbridge.forms.web", JSON.stringify({ identity: "gm:gm", reasons: "p1" }));
  assert.deepEqual(takeForms("web", tab).reasons, []);
});

test("a reason is kept with the epoch its request is in: an id alone names another request after a restore", () => {
  // a pending id is counted from the table's seq (p5), which a restored backup counts
  // again in a new epoch: a reason kept by its id alone came back beside another p5
  const tab = storage();
  const reasons = [[1765000000000, "p5", "not tonight"], ["p6", "no epoch"], [1.5, "p7", "no epoch either"],
    ["1765000000000", "p8", "an epoch is a number"]];
  keepForms("web", "gm:gm", { action: null, forms: {}, odds: [], reasons }, [], tab);
  assert.deepEqual(formsFor(takeForms("web", tab), "gm:gm").reasons, [[1765000000000, "p5", "not tonight"]]);
});

test("lines are kept with their identity and epoch: a pending id names another's request, or another after a restore", () => {
  // a restored backup counts pending ids and seqs again in a new epoch, and a shared
  // tablet's next person is someone else: the page follows what it kept only as the
  // identity that kept it, in the epoch it was kept in
  const tab = storage();
  const approved = { key: "ROLLBRIDGE.Web.Message.Approved", seq: 7 };
  keepLines("web", { message: approved, forms: {}, asked: [["p5", "roll"]], epoch: 1765000000000,
    identity: "player:Tukan" }, tab);
  const taken = takeLines("web", tab);
  assert.equal(taken.epoch, 1765000000000);
  assert.equal(taken.identity, "player:Tukan");
  assert.deepEqual(taken.asked, [["p5", "roll", null]]);
  for (const epoch of ["1765000000000", 1.5, null, undefined, { e: 1 }, 2 ** 53]) {
    keepLines("web", { message: approved, forms: {}, asked: [], epoch }, tab);
    assert.equal(takeLines("web", tab).epoch, null, `${JSON.stringify(epoch)} is no epoch`);
  }
  // what the tab's storage holds is read as strictly as what the page kept
  tab.setItem("rollbridge.lines.web", JSON.stringify({ asked: [["p5", "roll"]], epoch: "7", identity: ["gm"] }));
  const odd = takeLines("web", tab);
  assert.deepEqual([odd.epoch, odd.identity], [null, null]);
});

test("a line holding a token is not kept: the GM's reason is the GM's text", () => {
  // the player's page keeps its lines whenever it is hidden: a reason the GM wrote
  // with a token in it (a new link for the player) stayed in the tab's storage
  const tab = storage();
  const reason = (text) => ({ key: "ROLLBRIDGE.Web.Message.RejectedReason", data: { reason: text } });
  keepLines("web", { message: reason("rejoin with #token=rbt_AbCdEfGhIjKlMnOp"),
    forms: { roll: reason("use rba_ZZZZZZZZZZZZ"), adjust: reason("not tonight") }, asked: [] }, tab);
  assert.ok(![...tab.items.values()].some((value) => /rb[ta]_/.test(value)), [...tab.items.values()].join());
  const taken = takeLines("web", tab);
  assert.equal(taken.message, null);
  assert.deepEqual(Object.keys(taken.forms), ["adjust"]);
});

test("a request waiting for the GM is kept as it was sent, to be asked again; one holding a token is not", () => {
  // the page asks the server what became of it after a resume it could not recover
  // or a restore (askAgain: the request sent again with repeat): it kept only
  // [pending id, form key] and could not ask
  const tab = storage();
  const roll = { type: "roll", id: "web-1", formula: "2d6", label: "Schleichen", actor: "tukan" };
  const leaked = { type: "roll", id: "web-2", formula: "1d6", label: "rbt_AAAAAAAAAAAAAAAA" };
  const huge = { type: "roll", id: "web-3", formula: "1d6", label: "x".repeat(5_000) };
  keepLines("web", { message: null, forms: {}, epoch: 3, identity: "player:player",
    asked: [["p1", "roll", roll], ["p2", "roll", leaked], ["p3", "roll", huge], ["p4", "roll", ["roll"]],
      ["p5", "action:attack", { type: "resolve" }]] }, tab);
  assert.doesNotMatch(tab.getItem("rollbridge.lines.web"), /rbt_/);
  assert.deepEqual(takeLines("web", tab).asked, [["p1", "roll", roll], ["p2", "roll", null], ["p3", "roll", null],
    ["p4", "roll", null], ["p5", "action:attack", null]]);
});

test("a line whose event the GM undid says so after the reload too", () => {
  const tab = storage();
  const approved = { key: "ROLLBRIDGE.Web.Message.Approved", seq: 7, undone: true };
  keepLines("web", { message: approved, forms: { roll: { seq: 9, undone: true }, other: { seq: 8 } }, asked: [] }, tab);
  const taken = takeLines("web", tab);
  const summaryOf = (seq) => `event ${seq}`;
  assert.equal(lineText(taken.message, texts, summaryOf), `ROLLBRIDGE.Web.Message.Undone|${JSON.stringify({
    line: `ROLLBRIDGE.Web.Message.Approved|${JSON.stringify({ result: "event 7" })}` })}`);
  assert.equal(lineText(taken.forms.roll, texts, summaryOf),
    `ROLLBRIDGE.Web.Message.Undone|${JSON.stringify({ line: "event 9" })}`);
  assert.equal(lineText(taken.forms.other, texts, summaryOf), "event 8");
  // only a line naming an event can be undone; anything but true is not
  assert.equal(keptLine({ key: "ROLLBRIDGE.Web.Message.Rejected", undone: true }).undone, false);
  assert.equal(keptLine({ seq: 3, undone: "yes" }).undone, false);
});

test("the page's requests the GM answered are kept with what they asked, the oldest left out first", () => {
  // their log entries say what was asked (renderMine): after a reload the page showed
  // the secret placeholder of each again
  const tab = storage();
  const roll = (n, label = `roll ${n}`) => ({ type: "roll", id: `web-${n}`, formula: "2d6", label });
  const answered = [["p4", roll(4)], ["p5", roll(5, "rbt_AAAAAAAAAAAAAAAA")], ["p6", "roll"], ["p7", roll(7)]];
  keepLines("web", { message: null, forms: {}, asked: [], answered }, tab);
  assert.deepEqual(takeLines("web", tab).answered, [["p4", roll(4)], ["p7", roll(7)]]);
  // more than the tab's share: the oldest go, the lines and the requests waiting stay
  const many = Array.from({ length: 50 }, (_, n) => [`p${n + 1}`, roll(n + 1, "x".repeat(1_000))]);
  const waiting = [["p60", "roll", roll(60)]];
  assert.equal(keepLines("web", { message: { seq: 9 }, forms: {}, asked: waiting, answered: many }, tab), "kept");
  const taken = takeLines("web", tab);
  assert.deepEqual(taken.asked, waiting);
  assert.equal(taken.message.seq, 9);
  assert.ok(taken.answered.length > 0 && taken.answered.length < 50, taken.answered.length);
  assert.deepEqual(taken.answered.at(-1), many.at(-1));
});

test("a request the GM approved in secret is kept with the seq of its event", () => {
  // its log entry and its event's placeholder name each other after a reload too
  const tab = storage();
  const listen = { type: "resolve", id: "web-1", action: "listen", actor: "hero" };
  const answered = [["p4", listen, 5], ["p6", listen, "7"], ["p8", listen, -1], ["p9", listen]];
  keepLines("web", { message: null, forms: {}, asked: [], answered }, tab);
  assert.deepEqual(takeLines("web", tab).answered, [["p4", listen, 5], ["p6", listen], ["p8", listen], ["p9", listen]]);
});

test("what the tab holds already is not written again", () => {
  // the page keeps as the viewer types (table.mjs's keepSoon): the lines, unchanged
  // while a form is typed in, were written at every keep — on a phone, every keystroke
  const tab = storage();
  const writes = [];
  const setItem = tab.setItem;
  tab.setItem = (key, value) => {
    writes.push(key);
    return setItem(key, value);
  };
  const lines = { message: { key: "ROLLBRIDGE.Web.Message.Sent" }, forms: {}, asked: [], epoch: 1, identity: "player:A" };
  const typed = (note) => ({ action: "act03", forms: { "action:act03": { values: [{ name: "note", value: note }] } },
    odds: [] });
  for (const note of ["h", "ha", "hal", "half"]) {
    assert.equal(keepLines("web", lines, tab), "kept");
    assert.equal(keepForms("web", "player:A", typed(note), [], tab), "kept");
  }
  assert.deepEqual(writes, ["rollbridge.lines.web", "rollbridge.forms.web", "rollbridge.forms.web",
    "rollbridge.forms.web", "rollbridge.forms.web"]);
  assert.equal(keepForms("web", "player:A", typed("half"), [], tab), "kept");
  assert.equal(writes.length, 5);
  // taken (removed), then kept again: written
  takeLines("web", tab);
  assert.equal(keepLines("web", lines, tab), "kept");
  assert.equal(writes.at(-1), "rollbridge.lines.web");
  assert.equal(takeLines("web", tab).message.key, "ROLLBRIDGE.Web.Message.Sent");
});

/** A stand-in storage that refuses, as a browser's quota does, a write that would hold
 * more than its `room` characters in all. */
function fullStorage(room) {
  const tab = storage();
  tab.room = room;
  const setItem = tab.setItem;
  tab.setItem = (key, value) => {
    const others = [...tab.items].filter(([name]) => name !== key).reduce((sum, [, text]) => sum + text.length, 0);
    if (others + String(value).length > tab.room) throw new DOMException("full", "QuotaExceededError");
    return setItem(key, value);
  };
  return tab;
}

test("a draft the full storage refuses is kept smaller, or the older one goes", () => {
  // the quota's refusal left the older draft in place, unsaid: the page loaded anew
  // put back what was typed before as if it were the latest
  const typed = (note) => ({ action: "act03", shown: ["action:act03"],
    forms: { "action:act03": { values: [{ name: "note", value: note }, { name: "aim", value: "2" }] } }, odds: [] });
  const tab = fullStorage(1_500);
  assert.equal(keepForms("web", "player:A", typed("first plan"), [], tab), "kept");
  assert.equal(keepForms("web", "player:A", typed("x".repeat(1_900)), [], tab), "full");
  const kept = takeForms("web", tab);
  assert.equal(kept.cut, true); // said after the reload: some of it is missing
  // what fit a smaller share, not the older "first plan"
  assert.deepEqual(kept.forms["action:act03"].values, [{ name: "aim", value: "2" }]);
  // nothing fits: the older draft is removed, not brought back
  const tight = fullStorage(10_000);
  assert.equal(keepForms("web", "player:A", typed("first plan"), [], tight), "kept");
  tight.room = 50;
  assert.equal(keepForms("web", "player:A", typed("second plan"), [], tight), "full");
  assert.equal(tight.items.has("rollbridge.forms.web"), false);
  // room for none of what was typed but for saying so: after the reload the page says
  // that not all was kept (it said nothing: the draft removed, what was typed lost unsaid)
  const some = fullStorage(10_000);
  assert.equal(keepForms("web", "player:A", typed("first plan"), [], some), "kept");
  some.room = 110;
  assert.equal(keepForms("web", "player:A", typed("y".repeat(1_900)), [], some), "full");
  const told = takeForms("web", some);
  assert.equal(told.identity, "player:A");
  assert.equal(told.cut, true);
  assert.deepEqual(told.forms, {}); // not the older "first plan"
  // a storage refused for another reason is not full
  const refused = storage();
  refused.setItem = () => {
    throw new DOMException("denied", "SecurityError");
  };
  assert.equal(keepForms("web", "player:A", typed("plan"), [], refused), "not-kept");
});

test("lines the full storage refuses keep the requests waiting alone, or go", () => {
  // the quota's refusal left the lines kept before in place: the page loaded anew said
  // them again, stale
  const said = (text) => ({ message: { key: "ROLLBRIDGE.Web.Message.Sent", data: { text } }, forms: {},
    asked: [["p3", "roll"]], answered: [] });
  const tab = fullStorage(10_000);
  assert.equal(keepLines("web", said("first"), tab), "kept");
  tab.room = 200;
  assert.equal(keepLines("web", said("x".repeat(500)), tab), "full");
  const kept = takeLines("web", tab);
  assert.equal(kept.message, null); // not the older "first"
  assert.deepEqual(kept.asked, [["p3", "roll", null]]);
  tab.room = 10_000;
  assert.equal(keepLines("web", said("first"), tab), "kept");
  tab.room = 20;
  assert.equal(keepLines("web", said("second"), tab), "full");
  assert.equal(tab.items.has("rollbridge.lines.web"), false);
});
