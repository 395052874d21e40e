// Foundry glue: the element a render hook hands over — v13's hooks
// (renderChatMessageHTML, the ApplicationV2 sheets and HUD) an HTMLElement,
// v12's a jQuery object holding it.

/** The rendered element of a render hook's `html` (HTMLElement, or jQuery's first), or null. */
export function rootOf(html) {
  const Element = globalThis.HTMLElement;
  if (Element && html instanceof Element) return html;
  return html?.[0] ?? null;
}

/**
 * Mark a rendered card (`root`, a message's element) once: its `.rollbridge-card`
 * gets the class `rollbridge-<kind>` and a note beneath (`rollbridge-<kind>-note`,
 * `data-rollbridge="<kind>"`) reading the localised `key`, as text. Nothing where
 * there is no card, or the note is there already.
 * @param {any} root  the rendered message element (rootOf), or null
 * @param {string} kind  what marks it (`lookalike`, `restored`)
 * @param {string} key  the note's localisation key
 */
export function noteCard(root, kind, key) {
  const card = root?.querySelector?.(".rollbridge-card");
  if (!card || root.querySelector(`.rollbridge-${kind}-note`)) return;
  card.classList.add(`rollbridge-${kind}`);
  const note = document.createElement("div");
  note.className = `rollbridge-${kind}-note`;
  note.dataset.rollbridge = kind;
  note.textContent = game.i18n.localize(key);
  (root.querySelector(".message-content") ?? root).append(note);
}
