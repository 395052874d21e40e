// A request the server refuses, as the module shows it (docs/foundry.md,
// "Refusals and their codes"): the notification holds the server's message alone,
// as the server rendered it in the user's language; the error's code (protocol
// jargon, not a player's word) goes to the browser console for whoever helps them.
// The whole module in the Foundry stand-in, the test as the server.

import assert from "node:assert/strict";
import { test } from "node:test";

import { errorFromReply, RollbridgeError, shownError } from "../../../adapters/foundry/module/scripts/core/protocol.mjs";
import { localization } from "./localization.mjs";
import { consoleWarnings, joinedModule, Standin } from "./standin.mjs";

const i18n = { cs: await localization("cs"), de: await localization("de") };

test("shownError: the words alone for the user, the code on the console line", () => {
  const lines = [];
  const log = (line) => lines.push(line);
  const server = errorFromReply({ code: "not_found", message: "Akce „útok“ neexistuje." });
  assert.equal(shownError(server, i18n.cs, { context: "refused", log }), "Akce „útok“ neexistuje.");
  assert.deepEqual(lines, ["rollbridge | refused: not_found: Akce „útok“ neexistuje."]);
  // the module's own error (the server gave no message): its own text, which names the code
  assert.equal(shownError(errorFromReply({ code: "busy" }), i18n.de, { log }), "der Server hat die Anfrage abgelehnt (busy).");
  assert.equal(lines.at(-1), "rollbridge | refused: busy: the server refused");
  // no code (not connected): the words, and nothing for the console
  assert.equal(shownError(new Error("not connected"), i18n.de, { log }), "not connected");
  assert.equal(lines.length, 2);
  assert.equal(shownError(new RollbridgeError("error", ""), i18n.de, { log }), "error", "no words: the code rather than nothing");
});

// -- the module in the stand-in --------------------------------------------------------

const { serve } = await joinedModule({ generation: 13, system: "shadowrun5e", user: "player", lang: "de" });

test("/rb do refused: the notification is the server's message alone (in German, as the server sent it); the console has the code", async () => {
  assert.equal(game.i18n.lang, "de");
  Standin.log.notifications.length = 0;
  const message = "Die Waffe „Laser“ steht nicht auf Tukans Bogen (dort: Hackler).";
  const lines = await consoleWarnings(async () => {
    assert.equal(Hooks.call("chatMessage", {}, '/rb do attack guard {"weapon": "Laser"}', {}), false);
    const request = await serve((r) => ({ type: "error", id: r.id, code: "invalid_params", message }));
    assert.equal(request.action, "attack");
    for (let i = 0; i < 100 && !Standin.log.notifications.length; i++) await new Promise((r) => setTimeout(r, 5));
  });
  assert.deepEqual(Standin.log.notifications.map((n) => [n.level, n.text]), [["error", `rollbridge: ${message}`]]);
  assert.ok(!Standin.log.notifications[0].text.includes("invalid_params"), "no code shown to the player");
  assert.equal(lines.filter((l) => l.includes(`invalid_params: ${message}`)).length, 1, lines.join("\n"));
});

test("a refusal whose message holds markup (a name off a sheet) is shown as text: Foundry's notification reads its message as HTML", async () => {
  Standin.log.notifications.length = 0;
  const weapon = `<img src=x onerror="alert(1)">`;
  const message = `Die Waffe „${weapon}“ steht nicht auf Tukans Bogen (dort: Hackler & Co).`;
  const lines = await consoleWarnings(async () => {
    Hooks.call("chatMessage", {}, `/rb do attack guard ${JSON.stringify({ weapon })}`, {});
    await serve((r) => ({ type: "error", id: r.id, code: "invalid_params", message }));
    for (let i = 0; i < 100 && !Standin.log.notifications.length; i++) await new Promise((r) => setTimeout(r, 5));
  });
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), [
    `rollbridge: Die Waffe „&lt;img src=x onerror="alert(1)"&gt;“ steht nicht auf Tukans Bogen (dort: Hackler &amp; Co).`,
  ]);
  // the console has it as it came
  assert.equal(lines.filter((l) => l.endsWith(`invalid_params: ${message}`)).length, 1, lines.join("\n"));
  // and so has every notification made of a refusal: the module's own words too
  const log = () => {};
  assert.equal(shownError(errorFromReply({ code: "x", message: "a <b> & c" }), i18n.de, { log }), "a &lt;b&gt; &amp; c");
});
