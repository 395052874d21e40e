// The example macro (adapters/foundry/module/examples/attack-macro.js) run as
// Foundry runs a script macro, in the whole module in the Foundry stand-in, the
// test as the server: a refusal is notified through the API's errorNotice — the
// words alone in the user's language, escaped as text — and its code goes to the
// console (docs/foundry.md, "Refusals and their codes").

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import { requestUser } from "../../../adapters/foundry/module/scripts/core/protocol.mjs";
import { consoleWarnings, joinedModule, Standin } from "./standin.mjs";

const { api, ws, serve } = await joinedModule({ generation: 13, system: "shadowrun5e", user: "player", lang: "de" });

test("the example macro, refused: its notification is errorNotice's — the words alone, escaped, the code on the console", async () => {
  // Foundry runs a script macro's text as the body of an async function
  const source = await readFile(new URL("../../../adapters/foundry/module/examples/attack-macro.js", import.meta.url), "utf8");
  const macro = new Function(`return (async () => {\n${source}\n})();`);
  const flags = (id) => ({ rollbridge: { actorId: id } });
  canvas.tokens.controlled = [{ actor: { id: "tukan", flags: flags("tukan") } }];
  game.user.targets = new Set([{ actor: { id: "guard", flags: flags("guard") } }]);
  Standin.log.notifications.length = 0;
  const message = "Die Waffe „<b>Hackler</b>“ steht nicht auf Tukans Bogen.";
  const lines = await consoleWarnings(async () => {
    const before = ws.messages().length;
    const run = macro();
    for (let i = 0; i < 100 && ws.messages().length === before; i++) await new Promise((r) => setTimeout(r, 5));
    const request = ws.messages().at(-1);
    ws.receive({ type: "error", id: request.id, code: "invalid_params", message });
    assert.equal(request.action, "attack");
    assert.deepEqual([request.actor, request.targets], ["tukan", ["guard"]]);
    await run;
  });
  assert.deepEqual(Standin.log.notifications.map((n) => [n.level, n.text]), [
    ["error", "rollbridge: Die Waffe „&lt;b&gt;Hackler&lt;/b&gt;“ steht nicht auf Tukans Bogen."],
  ]);
  assert.deepEqual(lines.filter((l) => l.includes("invalid_params")), [`rollbridge | attack refused: invalid_params: ${message}`]);
  // a reply without a message: the module's own words, in German, naming the code
  Standin.log.notifications.length = 0;
  await consoleWarnings(async () => {
    const before = ws.messages().length;
    const run = macro();
    for (let i = 0; i < 100 && ws.messages().length === before; i++) await new Promise((r) => setTimeout(r, 5));
    ws.receive({ type: "error", id: ws.messages().at(-1).id, code: "unknown_actor" });
    await run;
  });
  assert.deepEqual(Standin.log.notifications.map((n) => n.text), ["rollbridge: der Server hat die Anfrage abgelehnt (unknown_actor)."]);
});

test("api.request with a macro's own id: sent naming its user, the reply naming the macro's own id (docs/foundry.md, the API)", async () => {
  // a macro that matches the reply to its request by the id it chose
  const asked = api.request({ type: "foundry.roll", id: "macro-7", formula: "1d6" });
  const request = await serve((sent) => ({ type: "result", id: sent.id, status: "done", seq: 1 }));
  assert.equal(requestUser(request.id), game.user.id, `${request.id} names the user`);
  assert.equal(request.id, api.sentId("macro-7"), "api.sentId tells the id sent (the event's `request`)");
  const reply = await asked;
  assert.equal(reply.id, "macro-7", "the reply names the macro's own id");
  assert.deepEqual([reply.status, reply.seq], ["done", 1]);
  // an id without the user's name to add (an integer) goes as it is, and comes back so
  const numbered = api.request({ type: "foundry.roll", id: 424242, formula: "1d6" });
  assert.equal((await serve((sent) => ({ type: "result", id: sent.id, status: "done", seq: 2 }))).id, 424242);
  assert.equal((await numbered).id, 424242);
});
