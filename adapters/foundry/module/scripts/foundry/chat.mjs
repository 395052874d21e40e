// Foundry glue: the chat card of an event, with the server's dice as Foundry
// Rolls (Roll.fromData) and Dice So Nice's animation when that module is on.
//
// A public card's message is created with its `rolls` (Dice So Nice's
// recommended path: it animates a message's rolls on every client and holds
// the card back until the dice land; other modules read the rolls; without
// Dice So Nice Foundry plays its dice sound). No separate showForRoll. It is
// created with the roll mode `publicroll`: v12's ChatMessage#_preCreate would
// otherwise apply the posting GM's own chat roll mode to it.
//
// A whispered card (a secret roll: GM, blind or self) carries no `rolls`:
// Foundry sends a roll message to every client and shows it there as "???"
// (ChatMessage#visible is true for any roll), so its content and its Rolls —
// the GM's view, which may hold an NPC's hidden numbers — would sit in every
// player's client. As a plain whisper it reaches only its readers; each
// reader's client animates its dice itself and holds the card back until they
// land, as Dice So Nice does for a public card (foundry/dice.mjs). The posting
// client does not wait for the animation: the events are handled one at a time.
//
// A turn hook's card (core/hooks.mjs: the result of a ruleset's round or turn
// rule in an encounter event) is posted the same way: `hook` in its flags.
//
// Each Die term's results are in Foundry's own order (the adapter's
// dice_out.py: every first roll, then each round of explosions), so the dice
// thrown are those Foundry would throw.
// The card of an event replayed after a reconnect (it happened while this
// client was away) is flagged `replayed`, and Dice So Nice is told not to
// animate it (skipReplayedDice, on its message hooks).
//
// The card is stored in the writer's language (flags.rollbridge.lang). When
// another user's client renders the message and its own connection received
// the same event, it draws the card again in its user's language
// (localizeRenderedCard, from the render hooks); the stored message is never
// changed.
//
// The stored card is for everyone who may see the message, so a public card is
// posted from the players' view (the GM's event's `players`): its HTML, its
// Rolls and its flags hold nothing the server keeps from players (an NPC's
// armour, boxes, target numbers). A GM-only card keeps the GM's view. The GM's
// client draws a public card again from the GM's own event (core/state.mjs
// cardToLocalize), so the GM reads the full card.

import { foundryActors } from "./actors.mjs";
import { renderCard } from "../core/card.mjs";
import { approvalCardHtml, approvalTitleData } from "../core/buttons.mjs";
import { cardEvent, cardToLocalize, cardView, MODULE_ID, speakerFor } from "../core/state.mjs";
import { rootOf } from "./dom.mjs";

/** Foundry Rolls from the server's Roll JSON (copied: Roll.fromData keeps the objects it is given). */
/** The actions of the ruleset this page's connection was last welcomed with
 * (`welcome.ruleset.actions`, in this user's language): their labels title the cards. */
let rulesetActions = null;

/** Keep the welcome's ruleset actions for the cards' titles (each welcome). */
export function setRulesetActions(actions) {
  rulesetActions = actions && typeof actions === "object" ? actions : null;
}

/** The actions setRulesetActions kept (null: this page has not been welcomed). */
export function currentActions() {
  return rulesetActions;
}

export function rollsOf(jsons) {
  return (jsons ?? []).map((json) => Roll.fromData(JSON.parse(JSON.stringify(json))));
}

/**
 * Post the chat card of an event as this client's connection received it.
 * `locale` is the language the server used for this connection, `role` this
 * connection's role at the table. `requester`: the event is the players' view
 * of a secret event the reply to this user's GM or self roll carried (the
 * server's `requester_sees`): a secret card in the players' view.
 */
export async function postCard(received, { locale = null, role = null, audience = null, replayed = false, requester = false, undoneAt = null } = {}) {
  const secret = Boolean(received.gm_only) || requester;
  const view = requester ? "players" : cardView(received, role);
  const event = cardEvent(received); // the players' view of a public GM event
  const actors = foundryActors();
  const speaker = speakerFor(event.foundry?.speaker?.actor, actors, event.foundry?.speaker?.alias);
  const rolls = rollsOf(event.foundry?.rolls);
  // who reads it (core/rollmode.mjs); without a word on it, a secret card is the GMs' alone
  const gms = ChatMessage.getWhisperRecipients("GM").map((u) => u.id);
  const readers = audience ?? { mode: secret ? "blindroll" : "publicroll", author: null, whisper: secret ? gms : [], blind: secret };
  const whisper = readers.whisper;
  // the card's own words in the user's language; the server's texts already are
  const content = renderCard(event, { speakerName: speaker.alias, showWho: false, i18n: game.i18n, actions: rulesetActions });
  const flags = {
    [MODULE_ID]: {
      table: event.table ?? null,
      epoch: event.epoch,
      seq: event.seq,
      kind: event.kind,
      // a turn hook's card: which of its encounter event's hooks (core/hooks.mjs)
      ...(Number.isInteger(event.hook) ? { hook: event.hook } : {}),
      // an event already undone when its card is posted (its undo came in the same
      // burst): posted flagged, not drawn again for the flag (foundry/undone.mjs)
      ...(Number.isSafeInteger(undoneAt) ? { undoneAt } : {}),
      request: event.request ?? null,
      // for the card's buttons (core/buttons.mjs): who acted, on whom, and the follow-up
      actor: event.data?.actor ?? null,
      targets: event.data?.targets ?? [],
      apply: event.data?.apply ?? null,
      rolls: event.foundry?.rolls ?? [],
      secret,
      // a roller's own card of a GM or self roll (the GM's client posts the GM's view too)
      requester,
      rollMode: readers.mode,
      replayed,
      // whose view the card is in: "players" (what any user may read) or "gm"
      view,
      // the card's language: the writer's Foundry language and the server's locale
      lang: game.i18n.lang,
      locale,
    },
  };
  const data = { content, speaker, flags };
  if (readers.author) data.author = readers.author;
  if (whisper.length) data.whisper = whisper;
  if (readers.blind) data.blind = true;
  // a whispered card's dice: each reader's client animates them (foundry/dice.mjs)
  if (!whisper.length && rolls.length) data.rolls = rolls;
  // Foundry's ChatMessage#_preCreate applies a roll mode to a message with rolls: on
  // v12, without one given and without a whisper, the posting user's own chat roll
  // mode (a GM on "Private GM Roll" would whisper every public card to the GMs). The
  // card's readers are decided above, so a public card says it is public.
  return ChatMessage.create(data, data.rolls ? { rollMode: "publicroll" } : {});
}

/**
 * Dice So Nice's hooks diceSoNiceMessagePreProcess (v6+, where the decision is
 * made) and diceSoNiceMessageProcessed (before v6): no animation for a replayed
 * card. It writes only when the animation is still on, so on v6 the second hook
 * finds it off already and changes nothing (v6 warns when that hook writes).
 */
export function skipReplayedDice(messageId, interception) {
  if (!interception?.willTrigger3DRoll) return;
  const message = game.messages?.get(messageId);
  if (message?.getFlag?.(MODULE_ID, "replayed")) interception.willTrigger3DRoll = false;
}

/** The GM-only card of a pending request (approval.requested), for its approve and reject buttons. */
export async function postApprovalCard(event) {
  const gms = ChatMessage.getWhisperRecipients("GM").map((u) => u.id);
  return ChatMessage.create({
    content: approvalCardHtml(event, { i18n: game.i18n, actions: rulesetActions }),
    whisper: gms,
    flags: {
      [MODULE_ID]: {
        table: event.table ?? null, epoch: event.epoch, seq: event.seq, kind: event.kind,
        pending: event.data?.pending ?? null, secret: true, view: "gm", lang: game.i18n.lang,
        // what the title says, for each GM to word it in their own language (approvaltitle.mjs)
        approval: approvalTitleData(event, { actions: rulesetActions }),
      },
    },
  });
}


const localized = new WeakSet();

/**
 * Draw a rendered rollbridge card again in this user's language from the event
 * this client's own connection received, when it holds that event and the card
 * is in another language, or, for a GM, when the card is the players' view and
 * this client holds the GM's event. Only the rendered element changes, never
 * the message. Returns true when it drew the card.
 */
export function localizeRenderedCard(message, html, cache) {
  const root = rootOf(html);
  const card = root?.querySelector(".rollbridge-card");
  if (!card || localized.has(card)) return false;
  const flag = (key) => message?.getFlag?.(MODULE_ID, key);
  const flags = flag("seq") === undefined ? null : {
    table: flag("table") ?? null, epoch: flag("epoch"), seq: flag("seq"), kind: flag("kind"), hook: flag("hook"),
    lang: flag("lang"), secret: flag("secret"), view: flag("view"),
  };
  const event = cardToLocalize({ flags, lang: game.i18n.lang, cache, user: game.user, message });
  if (!event) return false;
  const speaker = message.speaker ?? {};
  const template = document.createElement("template");
  template.innerHTML = renderCard(event, { speakerName: speaker.alias, showWho: false, i18n: game.i18n, actions: rulesetActions });
  const fresh = /** @type {HTMLElement | null} */ (template.content.firstElementChild);
  if (!fresh) return false;
  fresh.dataset.lang = game.i18n.lang;
  fresh.dataset.view = event.players || event.gm_only ? "gm" : "players";
  localized.add(fresh);
  card.replaceWith(fresh);
  return true;
}

/** Cards of `event` already rendered (the message came before the event did). */
export function localizeRenderedCards(event, cache) {
  const selector = `.rollbridge-card[data-epoch="${CSS.escape(String(event.epoch))}"][data-seq="${CSS.escape(String(event.seq))}"]`;
  for (const card of document.querySelectorAll(selector)) {
    const id = /** @type {HTMLElement | null} */ (card.closest("[data-message-id]"))?.dataset.messageId;
    const message = id ? game.messages?.get(id) : null;
    if (message && (message.getFlag(MODULE_ID, "table") ?? null) === (event.table ?? null)) {
      localizeRenderedCard(message, card.parentElement, cache);
    }
  }
}
