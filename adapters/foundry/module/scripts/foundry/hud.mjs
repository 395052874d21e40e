// Foundry glue: the common tracks drawn in the token HUD and on actor sheets,
// from the actor's flags.rollbridge.common (written by the GM's client).

import { tracksHtml } from "../core/card.mjs";
import { panelFlags } from "../core/state.mjs";
import { rootOf } from "./dom.mjs";


// a removed actor draws nothing; an unlinked token draws only its own state (core/state.mjs)
function panel(actor, className) {
  const flags = panelFlags(actor);
  if (!flags) return null;
  const div = document.createElement("div");
  div.className = `rollbridge-panel ${className}`;
  div.innerHTML = tracksHtml(flags.common, { name: game.i18n.localize("ROLLBRIDGE.Panel.Title"), i18n: game.i18n });
  return div;
}

export function onRenderTokenHUD(hud, html) {
  const root = rootOf(html);
  const actor = hud?.object?.actor ?? hud?.actor;
  const div = panel(actor, "rollbridge-hud");
  if (!root || !div) return;
  root.querySelector(".rollbridge-hud")?.remove();
  (root.querySelector(".col.right") ?? root).append(div);
}

export function onRenderActorSheet(app, html) {
  const root = rootOf(html) ?? app?.element;
  const actor = app?.actor ?? app?.document;
  const div = panel(actor, "rollbridge-sheet");
  if (!root || !div) return;
  root.querySelector(".rollbridge-sheet")?.remove();
  (root.querySelector(".window-content") ?? root).prepend(div);
}
