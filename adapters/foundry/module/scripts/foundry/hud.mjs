// Foundry glue: the common tracks drawn in the token HUD and on actor sheets.
// Drawn from this client's own connection's view of the actor where it has one
// (the GM's full view on the active GM's client), else from the actor's
// flags.rollbridge, which the GM's client writes as the players' view
// (core/state.mjs panelCommon): Foundry hands every actor to every client, so
// the flags never hold what players may not see.

import { tracksHtml } from "../core/card.mjs";
import { panelCommon } from "../core/state.mjs";
import { rootOf } from "./dom.mjs";


// a removed actor draws nothing; an unlinked token draws only its own state (core/state.mjs)
function panel(actor, className, live) {
  const common = panelCommon(actor, live);
  if (!common) return null;
  const div = document.createElement("div");
  div.className = `rollbridge-panel ${className}`;
  div.innerHTML = tracksHtml(common, { name: game.i18n.localize("ROLLBRIDGE.Panel.Title"), i18n: game.i18n });
  return div;
}

/** The token HUD's panel; `live` is this client's ActorViews (core/state.mjs), if any. */
export function onRenderTokenHUD(hud, html, live = null) {
  const root = rootOf(html);
  const actor = hud?.object?.actor ?? hud?.actor;
  const div = panel(actor, "rollbridge-hud", live);
  if (!root || !div) return;
  root.querySelector(".rollbridge-hud")?.remove();
  (root.querySelector(".col.right") ?? root).append(div);
}

/** The actor sheet's panel; `live` is this client's ActorViews (core/state.mjs), if any. */
export function onRenderActorSheet(app, html, live = null) {
  const root = rootOf(html) ?? app?.element;
  const actor = app?.actor ?? app?.document;
  const div = panel(actor, "rollbridge-sheet", live);
  if (!root || !div) return;
  root.querySelector(".rollbridge-sheet")?.remove();
  (root.querySelector(".window-content") ?? root).prepend(div);
}
