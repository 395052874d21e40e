// Odds before a roll (issue 18, item 5, the Foundry part): the `odds` request,
// its answer as outcomes with percentages (the server's labels, already in the
// viewer's language), and quiet degradation when the server refuses
// (`odds_hidden` a one-line note; `odds_unavailable`, `unknown_type` from an
// older server: nothing). The test plays the server's side on the fake socket.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  distributionOdds, oddsHtml, oddsMessage, oddsResult, oddsRows, percent, sumFractions,
} from "../../../adapters/foundry/module/scripts/core/odds.mjs";
import { parseChatCommand } from "../../../adapters/foundry/module/scripts/core/protocol.mjs";
import { en, localization } from "./localization.mjs";
import { rollbridgeOdds } from "./odds-labels.mjs";
import { joinedModule, Standin } from "./standin.mjs";

// a reply in the shape the server gives (2d6+1 grouped; the numbers are the test's own)
const ODDS = {
  outcomes: [
    { outcome: "3-9", label: "3–9", probability: "26/36", float: 26 / 36 },
    { outcome: "10-11", label: "10–11", probability: "5/36", float: 5 / 36 },
    { outcome: "12-13", label: "12–13 <b>", probability: "5/36", float: 5 / 36 },
  ],
  truncated: "0/1", truncated_float: 0, totals: null,
};

test("the request: an action with its actor, targets, params, assumptions; or a formula", () => {
  assert.deepEqual(oddsMessage({ id: "o1", action: "attack", actor: "tukan", targets: ["guard"], params: { weapon: "Hackler" }, assume: { guard: { sheet: { armor: 3 } } } }),
    { type: "odds", id: "o1", action: "attack", actor: "tukan", targets: ["guard"], params: { weapon: "Hackler" }, assume: { guard: { sheet: { armor: 3 } } } });
  assert.deepEqual(oddsMessage({ id: "o2", action: "soak", targets: [], params: {} }), { type: "odds", id: "o2", action: "soak" });
  assert.deepEqual(oddsMessage({ id: "o3", formula: "2d6+1" }), { type: "odds", id: "o3", formula: "2d6+1" });
});

test("answers and refusals: odds, a hidden note, or nothing", () => {
  assert.deepEqual(oddsResult({ reply: { type: "odds", id: "o", odds: ODDS } }), { kind: "odds", odds: ODDS });
  assert.deepEqual(oddsResult({ error: { code: "odds_hidden", details: { actor: "guard" } } }), { kind: "hidden", actor: "guard" });
  assert.equal(oddsResult({ error: { code: "odds_unavailable" } }), null);
  assert.equal(oddsResult({ error: { code: "unknown_type" } }), null, "an older server");
  assert.equal(oddsResult({ reply: { type: "odds", id: "o" } }), null);
});

test("percentages in the viewer's language; the server's labels escaped, as they come", async () => {
  const cs = await localization("cs");
  assert.equal(percent(5 / 36, "en"), "13.9%");
  assert.match(percent(5 / 36, "cs"), /^13,9\s%$/);
  assert.match(percent(5 / 36, "de"), /^13,9\s%$/);
  assert.equal(percent(0, "en"), "0%");
  assert.equal(percent(1e-6, "en"), "< 0.01%");
  assert.deepEqual(oddsRows(ODDS, "en").map((r) => [r.label, r.percent, r.probability]),
    [["3–9", "72.2%", "26/36"], ["10–11", "13.9%", "5/36"], ["12–13 <b>", "13.9%", "5/36"]]);
  const html = oddsHtml({ kind: "odds", odds: ODDS }, { i18n: en, title: "2d6+1", lang: "en" });
  assert.match(html, /Odds: 2d6\+1/);
  assert.equal((html.match(/<li /g) || []).length, 3);
  assert.match(html, /data-probability="5\/36"/);
  assert.ok(html.includes("12–13 &lt;b&gt;") && !html.includes("12–13 <b>"));
  assert.ok(!html.includes("rb-odds-truncated"), "nothing cut off, no note");
  const cut = oddsHtml({ kind: "odds", odds: { ...ODDS, truncated: "1/7776", truncated_float: 1 / 7776 } }, { i18n: cs, title: "d6x", lang: "cs" });
  assert.match(cut, /Šance: d6x/);
  assert.match(cut, /rb-odds-truncated">[^<]*0,013\s%/, "two significant digits under 1 %, as the web view");
  const hidden = oddsHtml({ kind: "hidden", actor: "guard" }, { i18n: en, actorName: () => "Guard" });
  assert.match(hidden, /hidden about Guard/);
  assert.equal(oddsHtml(null, { i18n: en }), "");
});

test("a chance a float cannot hold, or too small to show, is not 0 %; 0 % and 100 % only when exact", async () => {
  const de = await localization("de");
  // 999d6kh1 as rollbridge computes it: a 1 is 6^-999 (its float 0.0, its log10
  // -777.37), a 2 (2/6)^999 (float 0.0 too), a 6 is 1 - (5/6)^999 (its float 1.0)
  const { distribution } = rollbridgeOdds("999d6kh1");
  assert.equal(distribution.outcomes[0].float, 0);
  assert.ok(distribution.outcomes[0].log10 < -777);
  const odds = distributionOdds(distribution);
  assert.deepEqual(oddsRows(odds, "de").map((r) => [r.label, r.percent.replace(/\s/g, " ")]),
    [["1", "< 0,01 % (≈ 4,2 × 10⁻⁷⁷⁶ %)"], ["2", "< 0,01 % (≈ 2,3 × 10⁻⁴⁷⁵ %)"], ["3", "< 0,01 % (≈ 1,9 × 10⁻²⁹⁹ %)"],
      ["4", "< 0,01 % (≈ 1,2 × 10⁻¹⁷⁴ %)"], ["5", "< 0,01 % (≈ 7,9 × 10⁻⁷⁸ %)"], ["6", "> 99,9 %"]]);
  const html = oddsHtml({ kind: "odds", odds }, { i18n: de, title: "999d6kh1", lang: "de" });
  assert.ok(!/>0\s?%</.test(html) && !/>100\s?%</.test(html), html);
  // grouped totals whose floats all read 0: the run is not 0 either
  const run = distributionOdds({ outcomes: [
    { total: 1, probability: "1/1000", float: 0, log10: -3 }, { total: 2, probability: "999/1000", float: 1 },
  ] }, 1);
  assert.equal(oddsRows(run, "en")[0].percent, "100%", "1/1000 + 999/1000 is exactly 1");
  const tiny = distributionOdds({ outcomes: [{ total: 1, float: 0, log10: -400 }, { total: 2, float: 0, log10: -500 }] }, 1);
  assert.equal(tiny.outcomes[0].log10, -400);
  assert.equal(oddsRows(tiny, "en")[0].percent, "< 0.01% (≈ 1 × 10⁻³⁹⁸ %)");
  // small but a float: not rounded to 0; exactly 0 and exactly 1
  assert.equal(percent(1e-9, "ru").replace(/\s/g, " "), "< 0,01 %");
  assert.equal(oddsRows({ outcomes: [{ outcome: "x", float: 1e-9, probability: "1/1000000000" }] }, "cs")[0].percent.replace(/\s/g, " "), "< 0,01 % (≈ 1 × 10⁻⁷ %)");
  assert.deepEqual(oddsRows({ outcomes: [
    { outcome: "miss", float: 0, probability: "0" }, { outcome: "hit", float: 1, probability: "1" },
    { outcome: "near", float: 0.99999, probability: "99999/100000" },
  ] }, "en").map((r) => r.percent), ["0%", "100%", "> 99.9%"]);
  // what the depth cut off, too small for a float: said, not left out
  const cut = oddsHtml({ kind: "odds", odds: { ...ODDS, truncated: `1/1${"0".repeat(400)}`, truncated_float: 0, truncated_log10: -400 } },
    { i18n: en, title: "d6x", lang: "en" });
  assert.match(cut, /rb-odds-truncated">[^<]*&lt; 0\.01% \(≈ 1 × 10⁻³⁹⁸ %\)/);
});

// The test's own exact distribution of NdF (by enumeration), in the shape the server's
// formula odds take (core/odds: Distribution.to_dict: total, "p/q", float, mean)
function enumerate(n, faces) {
  const counts = new Map();
  const walk = (left, sum) => {
    if (!left) return counts.set(sum, (counts.get(sum) ?? 0) + 1);
    for (let f = 1; f <= faces; f++) walk(left - 1, sum + f);
  };
  walk(n, 0);
  const all = faces ** n;
  const gcd = (a, b) => (b ? gcd(b, a % b) : a);
  const outcomes = [...counts].sort((x, y) => x[0] - y[0]).map(([total, c]) => ({ total, probability: `${c / gcd(c, all)}/${all / gcd(c, all)}`, float: c / all }));
  return { formula: `${n}d${faces}`, depth: 10, outcomes, mean: String((n * (faces + 1)) / 2), mean_float: (n * (faces + 1)) / 2, truncated: "0", truncated_float: 0 };
}

test("a formula's distribution (a `result` with `distribution`): a row per total, or runs of totals summed exactly", () => {
  const two = oddsResult({ reply: { type: "result", id: "o", distribution: enumerate(2, 6) } });
  assert.equal(two.kind, "odds");
  assert.deepEqual(two.odds.outcomes.map((o) => o.outcome), ["2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"]);
  assert.equal(two.odds.outcomes[5].probability, "1/6");
  const four = distributionOdds(enumerate(4, 6));
  assert.ok(four.outcomes.length <= 16, "21 totals grouped");
  assert.equal(four.outcomes[0].outcome, "4–5");
  assert.equal(four.outcomes[0].probability, "5/1296", "1/1296 + 4/1296, exactly");
  assert.equal(sumFractions(four.outcomes.map((o) => o.probability)), "1", "nothing dropped");
  assert.ok(Math.abs(four.outcomes.reduce((t, o) => t + o.float, 0) - 1) < 1e-12);
  const html = oddsHtml({ kind: "odds", odds: four }, { i18n: en, title: "4d6", lang: "en" });
  assert.match(html, /on average 14/);
  assert.equal(sumFractions(["1/3", "1/6"]), "1/2");
  assert.equal(sumFractions(["x"]), null);
});

test("chat commands: /rb odds FORMULA, /rb odds ACTION [targets] {params}", () => {
  assert.deepEqual(parseChatCommand("/rb odds 2d6+1"), { kind: "odds", formula: "2d6+1" });
  assert.deepEqual(parseChatCommand("/rb odds d6x"), { kind: "odds", formula: "d6x" });
  assert.deepEqual(parseChatCommand('/rb odds attack guard {"weapon": "Hackler"}'),
    { kind: "odds", action: "attack", targets: ["guard"], params: { weapon: "Hackler" } });
  assert.equal(parseChatCommand("/rb odds").key, "ROLLBRIDGE.Chat.Error.NoOdds");
  // Foundry's labels dropped, as the server's Foundry adapter drops a roll's (odds_labels_v12/v13)
  assert.deepEqual(parseChatCommand("/rb odds 1d8x[Fighting]"), { kind: "odds", formula: "1d8x" });
  assert.deepEqual(parseChatCommand("/rb odds {1d8x[Fighting], 1d6x[Wild]}kh"), { kind: "odds", formula: "{1d8x, 1d6x}kh" });
  assert.equal(parseChatCommand("/rb odds [fire]").key, "ROLLBRIDGE.Chat.Error.NoOdds");
  assert.equal(parseChatCommand("/rb odds attack {nope").key, "ROLLBRIDGE.Chat.Error.ParamsNotJson");
  // the other commands as before
  assert.deepEqual(parseChatCommand('/rb do attack guard {"rounds": 3}'), { kind: "resolve", action: "attack", targets: ["guard"], params: { rounds: 3 } });
});

// -- the module in the stand-in, the test as the server -------------------------------------

const { api, serve } = await joinedModule({ generation: 12, system: "shadowrun5e", user: "player" });

test("api.odds asks the server and gives back its answer; refusals give null or a note", async () => {
  const asked = api.odds("attack", { actor: "tukan", targets: ["guard"], params: { weapon: "Hackler" } });
  const request = await serve((r) => ({ type: "odds", id: r.id, odds: ODDS }));
  assert.deepEqual({ ...request, id: undefined }, { type: "odds", id: undefined, action: "attack", actor: "tukan", targets: ["guard"], params: { weapon: "Hackler" } });
  assert.deepEqual(await asked, { kind: "odds", odds: ODDS });
  // the same answer as a `result` (the shape of the server's own reply to an action)
  const again = api.odds("attack", { actor: "tukan", targets: ["guard"] });
  await serve((r) => ({ type: "result", id: r.id, ruleset: "sr2", action: "attack", odds: ODDS, limited: [], assumed: [] }));
  assert.deepEqual(await again, { kind: "odds", odds: ODDS });
  const hidden = api.odds("attack", { actor: "tukan", targets: ["guard"] });
  await serve((r) => ({ type: "error", id: r.id, code: "odds_hidden", message: "hidden", details: { actor: "guard" } }));
  assert.deepEqual(await hidden, { kind: "hidden", actor: "guard" });
  const old = api.odds("2d6", { formula: "2d6" });
  await serve((r) => ({ type: "error", id: r.id, code: "unknown_type", message: "unknown message type odds" }));
  assert.equal(await old, null);
});

test("/rb odds posts the odds for this user alone; an older server's refusal is only a quiet notice", async () => {
  assert.equal(Hooks.call("chatMessage", {}, "/rb odds 2d6+1", {}), false, "the command is consumed");
  const asked = await serve((r) => ({ type: "result", id: r.id, distribution: { ...enumerate(2, 6), outcomes: enumerate(2, 6).outcomes.map((o) => ({ ...o, total: o.total + 1 })) } }));
  assert.deepEqual({ ...asked, id: undefined }, { type: "odds", id: undefined, formula: "2d6+1" });
  for (let i = 0; i < 100 && !Standin.log.messages.length; i++) await new Promise((r) => setTimeout(r, 5));
  const message = Standin.log.messages.at(-1);
  assert.deepEqual(message.whisper, [game.user.id]);
  assert.equal(message.flags.rollbridge.kind, "odds");
  assert.match(message.content, /data-outcome="8" data-probability="1\/6"/, "2d6+1 totals 7 with 1/6");
  assert.match(message.content, /16\.7%/);
  assert.match(message.content, /Odds: 2d6\+1/);
  const count = Standin.log.messages.length;
  Hooks.call("chatMessage", {}, "/rb odds attack guard", {});
  await serve((r) => ({ type: "error", id: r.id, code: "unknown_type", message: "unknown message type odds" }));
  for (let i = 0; i < 100 && !Standin.log.notifications.some((n) => n.text.includes("no odds")); i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(Standin.log.messages.length, count, "no card");
  assert.deepEqual(Standin.log.notifications.filter((n) => n.level === "error"), [], "no error shown");
  assert.ok(Standin.log.notifications.some((n) => n.level === "info" && n.text === `rollbridge: ${game.i18n.localize("ROLLBRIDGE.Odds.None")}`));
});

test("a chance under 0.01 % says its order of magnitude; a mean that is not exact says ≈ (both clients' chance.mjs)", async () => {
  const de = await localization("de");
  // 999d6kh1 as rollbridge computes it: a 1 is 6^-999 (log10 -777.37: 4.2 × 10^-776 %),
  // a 2 is 3^-999 - 6^-999 (log10 -476.64: 2.3 × 10^-475 %); its mean is 6 less
  // the sum of (k/6)^999 for k = 1…5, about 1.5 × 10^-79, and its float reads 6.0
  const { distribution } = rollbridgeOdds("999d6kh1");
  assert.equal(distribution.mean_float, 6);
  const rows = oddsRows(distributionOdds(distribution), "de").map((r) => r.percent.replace(/\s/g, " "));
  assert.equal(rows[0], "< 0,01 % (≈ 4,2 × 10⁻⁷⁷⁶ %)");
  assert.equal(rows[1], "< 0,01 % (≈ 2,3 × 10⁻⁴⁷⁵ %)");
  assert.equal(rows[5], "> 99,9 %", "near 1: no magnitude");
  const html = oddsHtml({ kind: "odds", odds: distributionOdds(distribution) }, { i18n: de, title: "999d6kh1", lang: "de" });
  assert.match(html, /rb-odds-mean" title="[^"]+">im Schnitt ≈ 6</, "not the exact-looking 6");
  assert.match(html, /title="1\/2361017103972476953966/, "the exact fraction on hover");
  // a float too small for 0.01 % but no log10: its own order; English's decimal point
  assert.equal(oddsRows({ outcomes: [{ outcome: "x", float: 1 / 6 ** 12 }] }, "en")[0].percent, "< 0.01% (≈ 4.6 × 10⁻⁸ %)");
  // ru and cs: a decimal comma; only a log10 (no fraction): from it
  assert.equal(oddsRows({ outcomes: [{ outcome: "x", float: 0, log10: -400.5 }] }, "ru")[0].percent.replace(/\s/g, " "),
    "< 0,01 % (≈ 3,2 × 10⁻³⁹⁹ %)");
  // what the depth cut off, too
  const cut = oddsHtml({ kind: "odds", odds: { ...ODDS, truncated: `1/3${"0".repeat(400)}`, truncated_float: 0, truncated_log10: -400.48 } },
    { i18n: await localization("cs"), title: "d6x", lang: "cs" });
  assert.match(cut.replace(/\s/g, " "), /rb-odds-truncated">[^<]*&lt; 0,01 % \(≈ 3,3 × 10⁻³⁹⁹ %\)/);
  // exact means stay as they were: 4d6's 14, 3d6's 10.50; 1d6x's cut-off tail is ≈
  assert.match(oddsHtml({ kind: "odds", odds: distributionOdds(enumerate(4, 6)) }, { i18n: en, title: "4d6", lang: "en" }), /on average 14</);
  assert.match(oddsHtml({ kind: "odds", odds: distributionOdds(enumerate(3, 6)) }, { i18n: en, title: "3d6", lang: "en" }), /on average 10\.50</);
  const exploding = rollbridgeOdds("1d6x").distribution;
  assert.match(oddsHtml({ kind: "odds", odds: distributionOdds(exploding) }, { i18n: de, title: "1d6x", lang: "de" }), /im Schnitt ≈ 4,20</);
});
