// The token HUD's and the actor sheet's rollbridge panels, drawn in Node (no DOM):
// just enough of one for the two render hooks (foundry/hud.mjs), an element that
// takes children.

import { onRenderActorSheet, onRenderTokenHUD } from "../../../adapters/foundry/module/scripts/foundry/hud.mjs";

/** An element as the hooks use it: children appended or prepended, two inner parts. */
function element() {
  return {
    children: [], className: "", innerHTML: "",
    append(child) { this.children.push(child); },
    prepend(child) { this.children.unshift(child); },
    querySelector(selector) { return selector === ".col.right" || selector === ".window-content" ? this.inner : null; },
  };
}

/**
 * The panels both hooks draw for `actor` (v12's jQuery-like argument: an array),
 * with this client's live views `live` (core/state.mjs ActorViews) or none:
 * [the HUD's children, the sheet's children].
 */
export function drawPanels(actor, live = null) {
  const hadDocument = "document" in globalThis;
  if (!hadDocument) globalThis.document = { createElement: () => element() };
  try {
    const hud = element();
    hud.inner = element();
    onRenderTokenHUD({ object: { actor } }, [hud], live);
    const sheet = element();
    sheet.inner = element();
    onRenderActorSheet({ actor }, [sheet], live);
    return [hud.inner.children, sheet.inner.children];
  } finally {
    if (!hadDocument) delete globalThis.document;
  }
}

/** The HTML of both panels for `actor`, joined: "" when neither draws anything. */
export function panelHtml(actor, live = null) {
  return drawPanels(actor, live).flat().map((child) => child.innerHTML).join("\n");
}
