// The top bar held at the top of a phone's screen (web.css makes it sticky below
// the three columns' width), so its connection word — offline, waiting, refused —
// and its Reconnect button stay in view while the player is down at the forms or
// deep in the log. The page's scroll padding follows the bar's height (the root's
// --topbar, which web.css reads), so what takes the focus, or is brought into view,
// comes to rest under the bar, never behind it (WCAG 2.4.11): its height changes with
// the words (a language, a Reconnect button shown) and the width (a phone turned).
// --topbar is set in a stylesheet of the page's own (a constructed one, adopted by
// the document), not in a style attribute, which the page's policy refuses.
//
// Who the viewer is, cut short with an ellipsis on a laptop's bar (a token's long
// name), is a button while it is cut, a stop of the keyboard, and shown whole under
// the bar while it has the focus or is pressed (followCutName): its whole was its
// tooltip, on hover, which a sighted keyboard user, or a touch screen, never shows.

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

/**
 * Keep `name` (who the viewer is, on the bar) a button that shows its whole text while
 * that is cut short (wider than its box: a laptop's bar), and `whole` — shown under
 * the bar while `name` has the keyboard's focus or is pressed open (`aria-expanded`,
 * web.css), until pressed again or Escape,
 * hidden from screen readers, which read `name`'s text whole — holding its whole text;
 * now, and whenever `name` changes size. Whole, `name` is text again. Call the
 * function it returns after `name`'s text changes.
 * @param {HTMLElement | null} name the bar's #role
 * @param {HTMLElement | null} whole the bar's #role-whole
 * @returns {() => void}
 */
export function followCutName(name = document.getElementById("role"), whole = document.getElementById("role-whole")) {
  if (!name || !whole) return () => {};
  const update = () => {
    whole.textContent = name.textContent;
    const cut = name.scrollWidth > name.clientWidth + 1;
    // not while focused: the focus would drop to the page's body
    if (!cut && name.ownerDocument.activeElement === name) return;
    if (cut && !name.hasAttribute("tabindex")) {
      name.tabIndex = 0;
      name.setAttribute("role", "button");
      name.setAttribute("aria-expanded", "false");
    } else if (!cut) {
      for (const attribute of ["tabindex", "role", "aria-expanded", "data-dismissed"]) name.removeAttribute(attribute);
    }
  };
  // pressed (a click, a tap — a touch screen has no hover for the tooltip —, Enter or
  // Space): the whole stays shown until pressed again, or Escape. Hidden so, it stays
  // hidden while the name keeps the focus (data-dismissed, web.css): shown on the
  // focus too, a press that hid it, and Escape, did nothing one could see (WCAG 1.4.13)
  const show = (open) => {
    name.setAttribute("aria-expanded", String(open));
    name.toggleAttribute("data-dismissed", !open);
  };
  const toggle = () => {
    if (name.getAttribute("role") !== "button") return;
    show(!(name.getAttribute("aria-expanded") === "true" || shownByFocus(name)));
  };
  name.addEventListener("click", toggle);
  name.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    toggle();
  });
  // Escape hides it wherever the focus is (pressed open, then left), the focus kept
  name.ownerDocument.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || name.getAttribute("role") !== "button") return;
    if (name.getAttribute("aria-expanded") === "true" || shownByFocus(name)) show(false);
  });
  // focused anew: shown again while it has the focus
  name.addEventListener("focus", () => name.removeAttribute("data-dismissed"));
  update();
  if (typeof ResizeObserver === "function") new ResizeObserver(update).observe(name);
  return update;
}

/** Whether `name`'s whole is shown for its focus (the keyboard's, web.css), not pressed
 * open. */
function shownByFocus(name) {
  return name.matches(":focus-visible") && !name.hasAttribute("data-dismissed");
}
