// Foundry glue: an approval card's title in the viewer's own language. The active GM's
// client posts the card (chat.mjs postApprovalCard) worded in its own language, and
// keeps what the title is made of in the message's flags (`approval`: who asks, the
// action's id and label, or the formula: core/buttons.mjs approvalTitleData); each
// client that renders the card words the title again from them in its user's language
// (this GM, another GM, the requester), the action's label from its own connection's
// ruleset actions where it has them. Only the rendered element changes, never the
// message; the title is set as text (textContent), so a third-party label such as
// `<img onerror=…>` or `[[1d1+99]]` reads as written — no markup, no inline roll
// (Foundry enriches a message's content before the render hook, never this text).

import { approvalTitle } from "../core/buttons.mjs";
import { MODULE_ID } from "../core/state.mjs";
import { authoredByGM } from "./buttons.mjs";
import { currentActions } from "./chat.mjs";
import { rootOf } from "./dom.mjs";

/**
 * Word an approval card's title in this user's language (a card a GM posted whose
 * flags carry `approval`); true when it did.
 * @param {any} message  the ChatMessage
 * @param {any} html  the render hook's element (v13) or jQuery object (v12)
 */
export function localizeApprovalTitle(message, html) {
  if (message?.getFlag?.(MODULE_ID, "kind") !== "approval.requested" || !authoredByGM(message)) return false;
  const data = message.getFlag(MODULE_ID, "approval");
  if (!data || typeof data !== "object") return false;
  const title = rootOf(html)?.querySelector?.(".rollbridge-card.rb-approval .rb-title");
  if (!title) return false;
  title.textContent = approvalTitle(data, { i18n: game.i18n, actions: currentActions() });
  title.closest(".rollbridge-card").dataset.lang = game.i18n.lang;
  return true;
}
