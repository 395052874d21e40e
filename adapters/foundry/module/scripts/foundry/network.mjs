// Foundry glue: the browser saying the network or the page came back. The
// connection's backoff waits up to 30 s between tries, and a line that died
// while the laptop slept is noticed at the next ping; told that the network is
// back (`online`), gone (`offline`), or that the tab is shown again
// (`visibilitychange` to visible, `pageshow` from the back-forward cache), the
// module tries at once instead: waiting, it reconnects now; connected, it pings
// now (client/connection.mjs nudge). The web view does the same.

/**
 * Call `nudge` when the network or the page comes back. `window` and `document`
 * are the page's (given for the tests). Returns a function that stops listening.
 * @param {() => void} nudge
 * @param {{window?: any, document?: any}} [targets]
 * @returns {() => void}
 */
export function watchNetwork(nudge, { window = globalThis, document = globalThis.document } = {}) {
  const visible = () => {
    if (document?.visibilityState === "visible") nudge();
  };
  const shown = (event) => {
    if (event?.persisted) nudge();
  };
  const listeners = [
    [window, "online", nudge], [window, "offline", nudge], [window, "pageshow", shown], [document, "visibilitychange", visible],
  ].filter(([target]) => typeof target?.addEventListener === "function");
  for (const [target, name, fn] of listeners) target.addEventListener(name, fn);
  return () => {
    for (const [target, name, fn] of listeners) target.removeEventListener(name, fn);
  };
}
