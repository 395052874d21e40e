// A player's request held for the GM's approval with the player's own dice, for an
// action that became always secret while it waited (an upgrade), approved from the
// module's approval card against a real server (started in process by
// tests/foundry/test_foundry_heldsecret_live.py): the GM's FoundryClient on the Foundry
// stand-in in Node, its WebSocket the `ws` package's. The GM's welcome lists the
// request: the client posts its approval card. *Approve* is refused
// `held_dice_secret` (the GM told why, in a notice; the card keeps its buttons);
// *Approve with my dice…*, 9 written in its dialog, sends the GM's die with the
// approval and the request is resolved with it. Before, the module had no way to send
// the GM's dice: its GM could only reject.
//
// Environment: RB_WS_URL, RB_TOKENS (JSON {gm}; never printed). Prints one line
// `RESULT {json}`; exits non-zero on any failure.

import process from "node:process";

import WebSocket from "ws";

import { cardOf, press } from "../../../adapters/foundry/module/scripts/foundry/buttons.mjs";
import { FoundryClient } from "../../../adapters/foundry/module/scripts/foundry/client.mjs";
import { registerModuleSettings, settle, Standin, world } from "../js/standin.mjs";
import { until } from "./night.mjs";

const URL = process.env.RB_WS_URL;
const TOKENS = JSON.parse(process.env.RB_TOKENS);
const USERS = [{ _id: "standinGM000001", name: "Gamemaster", isGM: true }, { _id: "standinPlr00001", name: "Player" }];

let client = null;
try {
  await world({ users: USERS, user: USERS[0]._id, generation: 13, settings: { "rollbridge.serverUrl": URL, "rollbridge.token": TOKENS.gm } });
  globalThis.WebSocket = WebSocket;
  await registerModuleSettings();
  game.ready = true;
  client = new FoundryClient();
  client.start();
  await until(() => client.connection?.welcome, "the GM's welcome");
  const message = await until(() => game.messages.contents.find((m) => m.flags?.rollbridge?.kind === "approval.requested"), "the approval card");
  const card = cardOf(message);
  const result = { pending: card.pending };

  // Approve: refused, the GM told why
  result.approve = await press("approve", card, client);
  result.notices = Standin.log.notifications.filter((n) => n.level !== "info").map((n) => n.text);
  result.state = client.approvals.state(card.pending);

  // Approve with my dice…: the GM's 9
  const open = Standin.log.dialogs.length;
  const pressed = press("approve-dice", card, client);
  const dialog = await until(() => Standin.log.dialogs.length > open && Standin.log.dialogs.at(-1), "the dice's dialog");
  result.dialog = dialog.title;
  await dialog.enter({ dice: "9" });
  const reply = await pressed;
  await settle(client);
  result.reply = { status: reply?.status ?? null, approved: reply?.approved ?? null, gmOnly: reply?.event?.gm_only ?? null, outcome: reply?.event?.data?.outcome ?? null };
  result.after = client.approvals.state(card.pending);
  result.noticesAfter = Standin.log.notifications.filter((n) => n.level !== "info").length;
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
} catch (error) {
  process.stdout.write(`FAILED ${error?.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  client?.stop();
}
