// Foundry glue: the chat card of an event, with the server's dice as Foundry
// Rolls (Roll.fromData) and Dice So Nice's animation when that module is on.
//
// With Dice So Nice, the card's rolls are shown with game.dice3d.showForRoll
// (synchronised to every user) and the message is created without `rolls`, so
// Dice So Nice does not animate them a second time; the Roll JSON stays in the
// message's flags. Without it, the message carries the Rolls (Foundry plays
// its dice sound and other modules can read them).
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

import { renderCard } from "../core/card.mjs";
import { cardEvent, cardToLocalize, cardView, MODULE_ID, speakerFor } from "../core/state.mjs";

export function rebuildRolls(event) {
  return (event.foundry?.rolls ?? []).map((json) => Roll.fromData(JSON.parse(JSON.stringify(json))));
}

/**
 * Post the chat card of an event as this client's connection received it.
 * `locale` is the language the server used for this connection, `role` this
 * connection's role at the table.
 */
export async function postCard(received, { locale = null, role = null } = {}) {
  const secret = Boolean(received.gm_only);
  const view = cardView(received, role);
  const event = cardEvent(received); // the players' view of a public GM event
  const actors = game.actors?.contents ?? [];
  const speaker = speakerFor(event.foundry?.speaker?.actor, actors, event.foundry?.speaker?.alias);
  const rolls = rebuildRolls(event);
  const whisper = secret ? ChatMessage.getWhisperRecipients("GM").map((u) => u.id) : [];
  // the card's own words in the user's language; the server's texts already are
  const content = renderCard(event, { speakerName: speaker.alias, showWho: false, i18n: game.i18n });
  const flags = {
    [MODULE_ID]: {
      table: event.table ?? null,
      epoch: event.epoch,
      seq: event.seq,
      kind: event.kind,
      request: event.request ?? null,
      rolls: event.foundry?.rolls ?? [],
      secret,
      // whose view the card is in: "players" (what any user may read) or "gm"
      view,
      // the card's language: the writer's Foundry language and the server's locale
      lang: game.i18n.lang,
      locale,
    },
  };
  const data = { content, speaker, flags };
  if (secret) {
    data.whisper = whisper;
    data.blind = true;
  }
  if (game.dice3d?.showForRoll) {
    for (const roll of rolls) {
      await game.dice3d.showForRoll(roll, game.user, true, secret ? whisper : null, secret);
    }
  } else if (rolls.length) {
    data.rolls = rolls;
  }
  return ChatMessage.create(data);
}

/** The card's DOM element in a rendered message (jQuery on v12, HTMLElement on v13). */
function rootOf(html) {
  if (html instanceof HTMLElement) return html;
  return html?.[0] instanceof HTMLElement ? html[0] : null;
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
    table: flag("table") ?? null, epoch: flag("epoch"), seq: flag("seq"), kind: flag("kind"),
    lang: flag("lang"), secret: flag("secret"), view: flag("view"),
  };
  const event = cardToLocalize({ flags, lang: game.i18n.lang, cache, user: game.user, message });
  if (!event) return false;
  const speaker = message.speaker ?? {};
  const template = document.createElement("template");
  template.innerHTML = renderCard(event, { speakerName: speaker.alias, showWho: false, i18n: game.i18n });
  const fresh = template.content.firstElementChild;
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
    const id = card.closest("[data-message-id]")?.dataset.messageId;
    const message = id ? game.messages?.get(id) : null;
    if (message && (message.getFlag(MODULE_ID, "table") ?? null) === (event.table ?? null)) {
      localizeRenderedCard(message, card.parentElement, cache);
    }
  }
}
