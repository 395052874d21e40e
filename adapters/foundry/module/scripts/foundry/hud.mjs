// Foundry glue: the common tracks drawn in the token HUD and on actor sheets.
// Drawn from this client's own connection's view of the actor where it has one
// (the GM's full view on the active GM's client), else from the actor's
// flags.rollbridge, which the GM's client writes as the players' view
// (core/state.mjs panelView): Foundry hands every actor to every client, so
// the flags never hold what players may not see.

import { escapeText, tracksHtml } from "../core/card.mjs";
import { isActiveGM, panelView } from "../core/state.mjs";
import { rootOf } from "./dom.mjs";

/** The note on a GM's panel drawn from the flags: what it shows is the players' view. */
const PLAYERS_VIEW = "ROLLBRIDGE.Panel.PlayersView";
/** The same note on a GM's panel whose client never connects (not the active GM). */
const PLAYERS_VIEW_OTHER_GM = "ROLLBRIDGE.Panel.PlayersViewOtherGM";

/** The note for this GM: the active GM's client has no view from its connection yet; a
 * second GM's never has one (only the active GM's client connects), and is told whose does. */
function playersViewNote() {
  const active = game.users?.activeGM ?? null;
  if (!active || isActiveGM(game.user, active)) return game.i18n.localize(PLAYERS_VIEW);
  return game.i18n.format(PLAYERS_VIEW_OTHER_GM, { gm: active.name ?? "?" });
}

// a removed actor draws nothing; an unlinked token draws only its own state (core/state.mjs).
// A GM's panel drawn from the flags (no view from this client's connection: a reload
// before its welcome, a second GM) says that it shows the players' view — for an NPC
// withheld there, the note alone.
function panel(actor, className, live) {
  const view = panelView(actor, live);
  const note = Boolean(game.user?.isGM) && view?.from === "flags";
  if (!view?.common && !note) return null;
  const div = document.createElement("div");
  div.className = `rollbridge-panel ${className}`;
  const name = game.i18n.localize("ROLLBRIDGE.Panel.Title");
  div.innerHTML = (view.common ? tracksHtml(view.common, { name, i18n: game.i18n }) : `<div class="rb-state-name">${escapeText(name)}</div>`)
    + (note ? `<p class="rb-players-view">${escapeText(playersViewNote())}</p>` : "");
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
