// The module's notifications on v12 and v13, against the stand-in's
// ui.notifications as each generation declares it (foundry-vtt-types 12.331 and
// 13.340): v12 puts a message in the page as HTML as it is; v13 cleans it as
// untrusted HTML unless `format` (whose values it escapes) or `localize` is passed.
// The module passes its finished text and none of those options, every value that
// is not its own words escaped once (core/protocol.mjs noticeData), so a notice reads
// exactly as written on both: no markup from a URL, a table id, a chat line or the
// server, and no `&lt;` shown for a `<` (no second escaping). Before the fix an
// invalid server URL, a table id from the URL, a JSON error quoting a chat line and
// the server's rate-limit words went into the notification as markup.

import assert from "node:assert/strict";
import { after, test } from "node:test";

import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { FakeWebSocket } from "./fakes.mjs";
import { joinedModule, registerModuleSettings, settle, Standin, world } from "./standin.mjs";

const MARKUP = '<img src=x onerror="alert(1)">';
let client = null;
after(() => {
  client?.stop();
});

/** The notifications shown since `from`: [level, the words a user reads, whether they hold an element]. */
const shown = (from = 0) => Standin.log.notifications.slice(from).map((n) => [n.level, n.shown, n.markup]);

/** A player's client at `url`, started (and welcomed, when it connects). */
async function started(generation, url) {
  client?.stop();
  await world({ user: "player", generation, settings: { "rollbridge.serverUrl": url } });
  await registerModuleSettings();
  client = new FoundryClient();
  client.start();
  return FakeWebSocket.last();
}

test("the stand-in's notifications follow each generation's API: v13 escapes format's values and cleans the message, v12 takes HTML as it is", async () => {
  await world({ generation: 13 });
  ui.notifications.info("a <b>bold</b> &amp; <script>alert(1)</script>word");
  ui.notifications.info("ROLLBRIDGE.Notice.RequestRejectedReason", { format: { reason: "<b>x</b>" } });
  ui.notifications.notify("ROLLBRIDGE.Notice.RequestRejected", "warning", { localize: true });
  assert.deepEqual(shown(), [
    ["info", "a bold & word", true],
    ["info", "the GM rejected your request: <b>x</b>", false],
    ["warn", "the GM rejected your request.", false],
  ]);
  await world({ generation: 12 });
  ui.notifications.info(`${MARKUP} &amp;`);
  assert.deepEqual(shown(), [["info", " &", true]], "v12: the message's markup is the page's");
});

for (const generation of [12, 13]) {
  test(`v${generation}: a server URL that is no URL is named as the GM typed it, as text`, async () => {
    await started(generation, MARKUP);
    const [[level, words, markup]] = shown();
    assert.equal(level, "error");
    assert.ok(words.includes(MARKUP), words);
    assert.equal(markup, false);
  });

  test(`v${generation}: a table id from the server URL, in the connected notice, as text`, async () => {
    const table = "<b>boss</b>";
    const ws = await started(generation, `wss://rollbridge.example/tables/${encodeURIComponent(table)}`);
    ws.open();
    const hello = ws.messages().find((m) => m.type === "hello");
    assert.equal(hello.table, table);
    ws.receive({ type: "welcome", id: hello.id, protocol: 1, role: "player", epoch: 1, seq: 0, locale: "en", table: { id: table, actors: [] } });
    await settle(client);
    assert.deepEqual(shown(), [["info", `rollbridge: connected to table ${table} as player.`, false]]);
  });

  test(`v${generation}: the module's own words with values, and the server's words, escaped once: read as written`, async () => {
    await started(generation, "wss://rollbridge.example/tables/t1");
    const from = Standin.log.notifications.length;
    client.notify("error", "ROLLBRIDGE.Notice.WriteFailed", { data: { actors: "<b>Ana</b> & Bo", reason: "x < 3 && y > 2" } });
    client.notify("warn", `too many <wrong> tokens & more`, { raw: true });
    const [[, write, writeMarkup], [, server, serverMarkup]] = shown(from);
    assert.ok(write.includes("<b>Ana</b> & Bo") && write.includes("x < 3 && y > 2"), write);
    assert.equal(server, "rollbridge: too many <wrong> tokens & more");
    assert.deepEqual([writeMarkup, serverMarkup], [false, false]);
  });
}

test("the chat command's notices (the whole module, v12): /rb status naming a table id from the URL, and a JSON error quoting the line, as text", async () => {
  const table = "<b>boss</b>";
  await joinedModule({ generation: 12, user: "player", settings: { "rollbridge.serverUrl": `wss://rollbridge.example/tables/${encodeURIComponent(table)}` } });
  Standin.log.notifications.length = 0;
  assert.equal(Hooks.call("chatMessage", {}, "/rb status", {}), false);
  assert.equal(Hooks.call("chatMessage", {}, `/rb do attack guard {${MARKUP}`, {}), false);
  const [[, status, statusMarkup], [level, words, markup]] = shown();
  assert.ok(status.includes(table), status);
  assert.equal(level, "warn");
  assert.match(words, /^rollbridge: the parameters are not JSON: /);
  assert.deepEqual([statusMarkup, markup], [false, false], words);
});
