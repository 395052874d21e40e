// rollbridge for Foundry VTT v12 and v13 — the module's entry point.
//
// Plain ES modules, no build step. This file wires Foundry's hooks to the
// glue in foundry/ and publishes the API on game.modules.get("rollbridge").api:
//
//   const rb = game.modules.get("rollbridge").api;
//   await rb.roll("2d6+1", {flavor: "Dodge"});                 // the server rolls
//   await rb.resolve("attack", {params: {weapon: "Hackler", range: "short"}});
//   await rb.odds("attack", {params: {weapon: "Hackler"}});   // the chances first
//   await rb.actionDialog("attack");          // its params in a dialog (null: cancelled)
//   rb.status();                                                // connection, role, cursor
//
// With the world setting "The server's dice for every roll", every Foundry roll
// (a system sheet's too) draws its dice from the server (foundry/fulfillment.mjs).
//
// With the world setting "Combat tracker runs the table's encounter" (on by
// default), the active GM's client starts, moves and ends the table's encounter
// as Foundry's combat tracker does (foundry/combat.mjs); what the ruleset's round
// and turn rules did is posted as chat cards (core/hooks.mjs, foundry/client.mjs).
//
// Dice So Nice: a public card's rolls are its own (its message's `rolls`); a
// whispered card's dice roll on each reader's screen, the card hidden until they
// land (foundry/dice.mjs).
//
// Chat: "/rb 2d6+1 # Dodge", "/rb do attack guard {"weapon": "Hackler"}",
// "/rb do attack guard" (the action's dialog), "/rb do" (pick an action first),
// "/rb odds 2d6+1", "/rb odds attack guard {…}", "/rb status".

import { markUndoneByRestore } from "./foundry/restored.mjs";
import { markUndone } from "./foundry/undone.mjs";
import { localizeRenderedCard, skipReplayedDice } from "./foundry/chat.mjs";
import { localizeApprovalTitle } from "./foundry/approvaltitle.mjs";
import { markLookalikes } from "./foundry/lookalike.mjs";
import { addButtons, redrawApprovalCards } from "./foundry/buttons.mjs";
import { rootOf } from "./foundry/dom.mjs";
import { animateWhisperedDice, hideWhileRolling, stopWhisperedDice } from "./foundry/dice.mjs";
import { registerRelay, socketSender } from "./foundry/relay.mjs";
import { FoundryClient } from "./foundry/client.mjs";
import { registerCombat } from "./foundry/combat.mjs";
import { watchNetwork } from "./foundry/network.mjs";
import { onRenderActorSheet, onRenderTokenHUD } from "./foundry/hud.mjs";
import { maskTokenInput, registerSettings, setting } from "./foundry/settings.mjs";
import { applyServerDice, flagLocalDice, markLocalDice, registerFulfillment } from "./foundry/fulfillment.mjs";
import { tracksHtml } from "./core/card.mjs";
import { CONNECTION_LABELS, labelOf, ROLE_LABELS } from "./client/i18n.mjs";
import { namingRequestId, noticeData, parseChatCommand, shownError } from "./core/protocol.mjs";
import { oddsHtml } from "./core/odds.mjs";
import { foundryActors } from "./foundry/actors.mjs";
import { actionDialog, pickAction } from "./foundry/dialog.mjs";
import { findActor, MODULE_ID } from "./core/state.mjs";

const client = new FoundryClient();
let serverDice = null; // the fulfillment method's state (core/fulfillment.mjs ServerDice)

function buildApi() {
  return {
    roll: (formula, options) => client.roll(formula, options),
    odds: (actionOrFormula, options) => client.odds(actionOrFormula, options),
    oddsHtml: (result, options = {}) => oddsHtml(result, { i18n: game.i18n, lang: game.i18n.lang, ...options }),
    resolve: (action, options) => client.resolve(action, options),
    actionDialog: (action, options) => actionDialog(client, action, options),
    request: (message) => client.ask(message),
    sentId: (id) => namingRequestId(id, game.user?.id),
    addActor: (actor, sheet, options) => client.addActor(actor, sheet, options),
    linkActor: (actor, rollbridgeId) => client.linkActor(actor, rollbridgeId),
    status: () => client.status(),
    serverDice: () => (serverDice ? { ...serverDice.stats, outage: serverDice.outage } : null),
    cachedEvent: (table, epoch, seq) => client.cachedEvent(table, epoch, seq),
    reconnect: () => client.start(),
    disconnect: () => client.stop(),
    tracksHtml: (common, options = {}) => tracksHtml(common, { i18n: game.i18n, ...options }),
    errorNotice: (error, context = "macro") => shownError(error, game.i18n, { context }),
    get connection() {
      return client.connection;
    },
  };
}

async function runChatCommand(command) {
  try {
    if (command.kind === "help") {
      ui.notifications.info(game.i18n.localize("ROLLBRIDGE.Chat.Help"));
    } else if (command.kind === "status") {
      const s = client.status();
      // the table's id comes from the server URL: text, never markup (noticeData)
      ui.notifications.info(game.i18n.format("ROLLBRIDGE.Chat.Status", noticeData({
        status: labelOf(game.i18n, CONNECTION_LABELS, s.status),
        table: s.table ?? "-",
        role: s.role ? labelOf(game.i18n, ROLE_LABELS, s.role) : "-",
        seq: s.cursor?.seq ?? "-",
      })));
    } else if (command.kind === "error") {
      // a JSON error quotes what the user typed: text, never markup
      ui.notifications.warn(`rollbridge: ${game.i18n.format(command.key, noticeData(command.data))}`);
    } else if (command.kind === "odds") {
      await showOdds(command);
    } else if (command.kind === "roll") {
      await client.roll(command.formula, { flavor: command.label || undefined });
    } else if (command.kind === "dialog" || command.kind === "pick") {
      const action = command.kind === "pick" ? await pickAction(client) : command.action;
      if (action) await actionDialog(client, action, { targets: command.targets?.length ? command.targets : undefined });
    } else if (command.kind === "resolve") {
      await client.resolve(command.action, {
        targets: command.targets.length ? command.targets : undefined,
        params: command.params,
      });
    }
  } catch (error) {
    ui.notifications.error(`rollbridge: ${shownError(error, game.i18n, { context: "/rb refused" })}`);
  }
}

/** `/rb odds …`: the odds as a card for this user alone, before the roll. */
async function showOdds(command) {
  const result = command.formula
    ? await client.odds(command.formula, { formula: command.formula })
    : await client.odds(command.action, { targets: command.targets.length ? command.targets : undefined, params: command.params });
  if (!result) {
    ui.notifications.info(`rollbridge: ${game.i18n.localize("ROLLBRIDGE.Odds.None")}`);
    return null;
  }
  const actorName = (id) => findActor(id, foundryActors())?.name ?? id;
  const content = oddsHtml(result, {
    i18n: game.i18n, lang: game.i18n.lang, title: command.formula ?? command.action, actorName,
  });
  return ChatMessage.create({
    content, speaker: ChatMessage.getSpeaker(), whisper: [game.user.id],
    flags: { [MODULE_ID]: { kind: "odds", odds: result.kind === "odds" ? result.odds : null } },
  });
}

function onRenderChatMessage(message, html) {
  try {
    hideWhileRolling(message, html); // a whispered card whose dice still roll here (dice.mjs)
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
  try {
    markLocalDice(message, rootOf(html)); // "local dice, not the server's"
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
  try {
    localizeRenderedCard(message, html, client.events);
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
  try {
    localizeApprovalTitle(message, html); // an approval card's title in this user's language
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
  try {
    markLookalikes(message, html); // a player's card of an event whose GM's card is there
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
  try {
    markUndoneByRestore(message, html); // a card whose event a restore undid
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
  try {
    markUndone(message, html); // a card whose event the GM undid
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
  try {
    addButtons(message, html, client); // after any redraw, on the card as shown
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
}

Hooks.once("init", () => {
  registerSettings(() => {
    if (game.ready) client.start();
  }, {
    onServerDice: applyServerDice,
    // back to `auto` from a mapping chosen by hand: the GM's values of the NPCs it wrote go
    onMapping: () => client.mappingChanged().catch((error) => console.warn(`rollbridge | the system mapping: ${error?.message ?? error}`)),
    // the GM's record of outcomes changed (written by the active GM's client): the
    // approval cards drawn here drawn again as it says
    onOutcomes: () => redrawApprovalCards(client).catch((error) => console.warn(`rollbridge | the approval cards: ${error?.message ?? error}`)),
  });
  // the server's dice for every roll: a fulfillment method, Foundry's default when the GM says so
  serverDice = registerFulfillment(client);
  applyServerDice(setting("serverDice"));
  const module = game.modules.get(MODULE_ID);
  if (module) /** @type {any} */ (module).api = buildApi();
  // A card drawn again in this user's language (chat.mjs). v13 renders a message
  // with renderChatMessageHTML (an HTMLElement) and then fires the deprecated
  // renderChatMessage (jQuery) as well, but only when something listens to it
  // (`"renderChatMessage" in Hooks.events`, with a compatibility warning): so the
  // v12 hook is registered on v12 only, and each card element is drawn once
  // (its language, then its buttons: onRenderChatMessage).
  Hooks.on("renderChatMessageHTML", onRenderChatMessage);
  if ((game.release?.generation ?? 13) < 13) Hooks.on("renderChatMessage", onRenderChatMessage);
  // a player's client asks the GM's through a v13 query (v12: the module's socket, on ready)
  registerRelay((message, options) => client.relayed(message, options));
  // the combat tracker runs the table's encounter (the active GM's client sends)
  registerCombat(client);
});

Hooks.once("ready", () => {
  // Foundry's server adds the sender's user id after the sender's arguments
  game.socket?.on(`module.${MODULE_ID}`, (message, ...rest) => client.onSocket(message, socketSender(rest)));
  client.start();
  // the network or the tab back: try now, not at the backoff's next step
  watchNetwork(() => client.nudge());
});

Hooks.on("chatMessage", (_log, text) => {
  const command = parseChatCommand(text);
  if (!command) return true;
  runChatCommand(command);
  return false;
});

// Dice So Nice animates a message's rolls; not those of a card replayed after a reconnect
Hooks.on("diceSoNiceMessagePreProcess", skipReplayedDice);
Hooks.on("diceSoNiceMessageProcessed", skipReplayedDice);
// a whispered card's dice: animated on each client that reads it, the card hidden until
// they land, as Dice So Nice does for a public card's rolls (foundry/dice.mjs)
Hooks.on("createChatMessage", (message) => {
  try {
    animateWhisperedDice(message);
  } catch (error) {
    console.error(`rollbridge | ${error?.message ?? error}`);
  }
});
Hooks.on("deleteChatMessage", (message) => stopWhisperedDice(message));

// a message whose rolls took Foundry's own dice keeps a flag of it (localDice)
Hooks.on("preCreateChatMessage", (message) => flagLocalDice(message));

// the panels draw this client's own connection's views first (the GM's full view on
// the GM's client), else the flags' players' view (foundry/hud.mjs)
Hooks.on("renderTokenHUD", (hud, html) => onRenderTokenHUD(hud, html, client.views));
Hooks.on("renderActorSheet", (app, html) => onRenderActorSheet(app, html, client.views));
Hooks.on("renderActorSheetV2", (app, html) => onRenderActorSheet(app, html, client.views));
Hooks.on("renderSettingsConfig", (_app, html) => maskTokenInput(html));

// The active GM may change (a GM joins or leaves): the writer is re-chosen.
Hooks.on("userConnected", () => {
  if (game.ready) client.reconsider();
});
