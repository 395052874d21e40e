// The top bar held at the top of a phone's screen (web.css makes it sticky below
// the three columns' width), so its connection word — offline, waiting, refused —
// and its Reconnect button stay in view while the player is down at the forms or
// deep in the log. The page's scroll padding follows the bar's height (the root's
// --topbar, which web.css reads), so what takes the focus, or is brought into view,
// comes to rest under the bar, never behind it (WCAG 2.4.11): its height changes with
// the words (a language, a Reconnect button shown) and the width (a phone turned).
// --topbar is set in a stylesheet of the page's own (a constructed one, adopted by
// the document), not in a style attribute, which the page's policy refuses.

/** The bar's height in px while it is sticky, else 0. */
export function barHeight(bar, view = globalThis) {
  if (view.getComputedStyle(bar).position !== "sticky") return 0;
  return Math.ceil(bar.getBoundingClientRect().height);
}

/**
 * Keep the root's --topbar at the height of `bar` (0 where it is not sticky), now
 * and whenever the bar changes size; the ResizeObserver, or null where the browser
 * has no ResizeObserver or constructed stylesheets (the padding is then 0).
 * @param {HTMLElement | null} bar the page's header.topbar
 * @param {Document} doc the page
 */
export function followTopBar(bar = document.querySelector("header.topbar"), doc = document) {
  if (!bar || typeof ResizeObserver !== "function" || typeof CSSStyleSheet !== "function"
    || !Array.isArray(doc.adoptedStyleSheets)) return null;
  const sheet = new CSSStyleSheet();
  doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  let shown = null;
  const update = () => {
    const height = barHeight(bar, doc.defaultView ?? globalThis);
    if (height === shown) return;
    shown = height;
    sheet.replaceSync(`:root { --topbar: ${height}px; }`);
  };
  update();
  const observer = new ResizeObserver(update);
  observer.observe(bar);
  return observer;
}
