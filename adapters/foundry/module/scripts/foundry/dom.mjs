// Foundry glue: the element a render hook hands over — v13's hooks
// (renderChatMessageHTML, the ApplicationV2 sheets and HUD) an HTMLElement,
// v12's a jQuery object holding it.

/** The rendered element of a render hook's `html` (HTMLElement, or jQuery's first), or null. */
export function rootOf(html) {
  const Element = globalThis.HTMLElement;
  if (Element && html instanceof Element) return html;
  return html?.[0] ?? null;
}
