// The web view as a player uses it on a phone (a slow or broken line, the forms at
// the bottom of the page, the GM changing the table while the player types) and
// as a screen reader reads it, in headless Chromium against a real rollbridge
// server (started by tests/web/test_web_phone.py). RB_CASE names the case; prints
// one line `RESULT {json}` of what the pages showed and sent; the Python test
// judges it. Exits non-zero when a step cannot be done at all.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import {
  DESKTOP, PHONE, SMALL_PHONE, addActor, connected, flush, gmRequest, joinedPage, openPage, roll, runCase,
  seqOf, tapWebSocket, tukanHitsRook, waitSeq, waiter,
} from "./pages.mjs";

const env = process.env;
const BASE = env.RB_BASE;
const TOKENS = JSON.parse(env.RB_TOKENS);
const trouble = { errors: [], dialogs: [] };
const EN_PHONE = { ...PHONE, locale: "en-US" };
/** A German compound as an actor's name: one word wider than a phone. */
const LONG_NAME = "Sicherheitsdienstleistungsgesellschaftsvorstandsvorsitzenderstellvertreterin Tukan";

function step(name) {
  process.stderr.write(`phone: ${name}\n`);
}

/** The roll form's button (whether it is aria-disabled, truly disabled, and has the
 * focus) and status line, and the page's message line. */
const rollFormState = (page) => page.evaluate(() => {
  const form = document.querySelector("form.roll-form");
  const button = form.querySelector('button[type="submit"]');
  return {
    unavailable: button.getAttribute("aria-disabled") === "true", disabled: button.disabled,
    focused: document.activeElement === button, button: button.textContent,
    status: form.querySelector(".form-status")?.textContent ?? null,
    message: document.getElementById("message").textContent,
  };
});

/** Fill the roll form and tap its button (not waiting for the roll). */
async function tapRoll(page, formula, label) {
  const form = page.locator("form.roll-form");
  await form.locator('input[name="formula"]').fill(formula);
  await form.locator('input[name="label"]').fill(label);
  await form.locator('button[type="submit"]').click();
}

/** Submit the roll form again as an impatient player can: a script's submit, a
 * click on its (aria-disabled) button, Enter in its formula field. */
const submitAgain = (page) => page.evaluate(() => document.querySelector("form.roll-form").requestSubmit());

/** The roll form's button is free again: its request answered. */
const rollFree = (page) => page.waitForFunction(
  () => document.querySelector('form.roll-form button[type="submit"]').getAttribute("aria-disabled") !== "true");

/** The roll requests a page sent with `label`: their ids. */
const sentRolls = (gate, label) => gate.sent.map((f) => JSON.parse(f))
  .filter((m) => m.type === "roll" && m.label === label).map((m) => m.id);

/** The log entries of rolls labelled `label`. */
const rollsShown = (page, label) => page.$$eval("#log li.kind-roll",
  (items, text) => items.filter((li) => li.textContent.includes(text)).length, label);

/** Where an element is against the viewport: its text and whether it is all on screen. */
const onScreen = (page, selector) => page.$eval(selector, (node) => {
  const box = node.getBoundingClientRect();
  return { text: node.textContent, top: Math.round(box.top), bottom: Math.round(box.bottom),
    visible: box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight };
});

/** The contrast ratio (WCAG 2) of an element's text against the background behind
 * it (the first ancestor's that is not transparent), with both colours. */
const contrastOf = (page, selector) => page.$eval(selector, (node) => {
  const rgb = (text) => text.match(/[\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => {
    const linear = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  let behind = node;
  while (behind && (getComputedStyle(behind).backgroundColor === "rgba(0, 0, 0, 0)")) behind = behind.parentElement;
  const fg = getComputedStyle(node).color;
  const bg = behind ? getComputedStyle(behind).backgroundColor : "rgb(255, 255, 255)";
  const [a, b] = [luminance(rgb(fg)), luminance(rgb(bg))].sort((x, y) => y - x);
  return { ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100, fg, bg, text: node.textContent };
});

/** Every text of the page that is on screen, with its contrast (WCAG 2) against
 * what it is read on when the scene behind the transparent page is `scene` (an
 * `rgb(…)`): a solid outline around its letters (blur-free shadows on all eight
 * sides, at least 1 px out), else the backgrounds under it laid over the scene
 * (each with its alpha and the opacity of the elements it is in); its letters
 * laid over that as well. Large text (24 px, or 18.66 px bold) needs 3:1, other
 * text 4.5:1 (WCAG 1.4.3, as axe's color-contrast). */
const sceneContrasts = (page, scene) => page.evaluate((sceneColor) => {
  const rgba = (text) => {
    const [r, g, b, a = 1] = text.match(/[\d.]+/g).map(Number);
    return { r, g, b, a };
  };
  const over = (top, below, alpha = top.a) => ({ r: top.r * alpha + below.r * (1 - alpha),
    g: top.g * alpha + below.g * (1 - alpha), b: top.b * alpha + below.b * (1 - alpha), a: 1 });
  const luminance = ({ r, g, b }) => {
    const linear = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  };
  /** The colour of a solid outline the text-shadow draws, or null. */
  const outlineOf = (style) => {
    if (style.textShadow === "none") return null;
    const shadows = style.textShadow.split(/,(?![^(]*\))/).map((part) => {
      const color = part.match(/rgba?\([^)]*\)/)?.[0];
      const [x, y, blur = 0] = part.replace(color, "").match(/-?[\d.]+px/g).map(parseFloat);
      return { color, x, y, blur };
    });
    const solid = shadows.filter((s) => s.blur === 0 && rgba(s.color).a === 1 && Math.max(Math.abs(s.x), Math.abs(s.y)) >= 1);
    const sides = new Set(solid.map((s) => `${Math.sign(s.x)},${Math.sign(s.y)}`));
    const colors = new Set(solid.map((s) => s.color));
    return sides.size === 8 && colors.size === 1 ? rgba(solid[0].color) : null;
  };
  const texts = [...document.body.querySelectorAll("*")].filter((node) =>
    [...node.childNodes].some((child) => child.nodeType === Node.TEXT_NODE && child.textContent.trim()));
  return texts.map((node) => {
    const box = node.getBoundingClientRect();
    const style = getComputedStyle(node);
    if (box.width <= 1 || box.height <= 1 || style.visibility !== "visible") return null; // not on screen
    const chain = [];
    for (let at = node; at; at = at.parentElement) chain.unshift(at);
    let behind = rgba(sceneColor);
    let opacity = 1;
    for (const at of chain) {
      const own = getComputedStyle(at);
      opacity *= Number(own.opacity);
      const fill = rgba(own.backgroundColor);
      if (fill.a > 0) behind = over(fill, behind, fill.a * opacity);
    }
    const outline = outlineOf(style);
    if (outline) behind = over(outline, behind, opacity);
    const ink = rgba(style.color);
    const fg = over(ink, behind, ink.a * opacity);
    const [a, b] = [luminance(fg), luminance(behind)].sort((x, y) => y - x);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    return { what: `${node.tagName.toLowerCase()}.${[...node.classList].join(".")}`, text: node.textContent.trim(),
      ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100, needs: large ? 3 : 4.5, outline: Boolean(outline) };
  }).filter(Boolean);
}, scene);

/** How each die of the log entry `seq` is drawn: its classes, the opacity it is
 * shown with (its own and its ancestors', multiplied: below 1 it is see-through,
 * which axe's color-contrast cannot judge and lists as incomplete), its line, and
 * its text and background colours and border style. */
const diceLooks = (page, seq) => page.$$eval(`#log li[data-seq="${seq}"] .die`, (dice) => dice.map((die) => {
  let opacity = 1;
  for (let at = die; at; at = at.parentElement) opacity *= Number(getComputedStyle(at).opacity);
  const style = getComputedStyle(die);
  return { classes: die.className, opacity, line: style.textDecorationLine, color: style.color,
    background: style.backgroundColor, border: style.borderTopStyle };
}));

/** Tab from the table's heading to the page's end: the panels the focus goes
 * through, in order, each once with its first stop and where the panel is. */
async function focusStops(page) {
  await page.focus("#title");
  const stops = [];
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(() => {
      const node = document.activeElement;
      // the bar's button and the line under it (Leave, the language), before the panels
      if (node?.closest("header.topbar, .bar-tools")) return { header: true };
      const panel = node?.closest("section.panel");
      if (!panel) return null;
      const box = panel.getBoundingClientRect();
      return { panel: panel.id, top: Math.round(box.top + window.scrollY), left: Math.round(box.left),
        what: `${node.tagName}#${node.id}` };
    });
    if (!stop) break; // out of the table (the page's end)
    if (stop.header) continue;
    if (stops.at(-1)?.panel !== stop.panel) stops.push(stop);
  }
  return stops;
}

const cases = {
  /** A roll tapped on a slow line and while the line is down: the button says so,
   * and tapping again sends the same request: one roll. */
  async once(browser, result) {
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player,
      { tap: true });
    const gate = player.gate;
    step("a slow line: the request waits at the proxy");
    gate.hold = true;
    await tapRoll(player, "2d6", "slow tap");
    result.slow = await rollFormState(player);
    // the keyboard on the button it tapped: Enter, Space; then a click (forced: Playwright
    // waits for an aria-disabled button to be enabled, a player's finger does not)
    await player.keyboard.press("Enter");
    await player.keyboard.press(" ");
    result.slow.pressed = await rollFormState(player);
    await submitAgain(player);
    await player.locator('form.roll-form button[type="submit"]').click({ force: true });
    await player.locator('form.roll-form input[name="formula"]').press("Enter");
    await submitAgain(player);
    result.slow.flushed = await flush(player, { answered: false }); // the page's sends so far, all held
    gate.release();
    await player.locator("#log li.kind-roll", { hasText: "slow tap" }).first().waitFor();
    await rollFree(player);
    // a second roll, were there one, was sent before this ping and answered before its pong
    result.slow.flushed &&= await flush(player);
    result.slow.rolls = await rollsShown(player, "slow tap");
    result.slow.sent = sentRolls(gate, "slow tap");
    result.slow.after = await rollFormState(player);

    step("the line is down: the request waits for the connection");
    gate.open = false;
    gate.drop();
    await player.waitForSelector('body[data-status="waiting"]');
    await tapRoll(player, "3d6", "down tap");
    result.down = await rollFormState(player);
    await submitAgain(player);
    await player.locator('form.roll-form button[type="submit"]').click({ force: true });
    await submitAgain(player);
    gate.open = true;
    await player.locator("#log li.kind-roll", { hasText: "down tap" }).first().waitFor({ timeout: 60_000 });
    await rollFree(player);
    result.down.flushed = await flush(player);
    result.down.rolls = await rollsShown(player, "down tap");
    result.down.sent = sentRolls(gate, "down tap");
    result.down.after = await rollFormState(player);
  },

  /** A roll that reached the server, whose answer the line lost: the phone's screen
   * locked meanwhile (the page frozen, as a phone freezes a background tab), the
   * player tapping again when it is back; it comes back, and the roll is the one made. */
  async lostReply(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "en-US" }, trouble,
      `${BASE}/tables/web`, TOKENS.web.player, { tap: true });
    const gate = player.gate;
    const cdp = await player.context().newCDPSession(player);
    gate.swallow = () => true; // from now on the server's frames are lost on the way
    await tapRoll(player, "2d6", "lost answer");
    const [id] = await (async () => {
      await gate.until(() => sentRolls(gate, "lost answer").length > 0);
      return sentRolls(gate, "lost answer");
    })();
    // the server made the roll: its answer (and event) went out, and were lost
    result.made = await gate.until(() => gate.swallowed.some((f) => JSON.parse(f).id === id));
    step("the screen locks: the page frozen, the line breaks");
    result.frozen = await cdp.send("Page.setWebLifecycleState", { state: "frozen" }).then(() => true, (e) => e.message);
    gate.open = false;
    gate.drop();
    await cdp.send("Page.setWebLifecycleState", { state: "active" }).catch(() => {});
    await player.waitForSelector('body[data-status="waiting"]');
    result.waiting = await rollFormState(player);
    // the player taps again, and again: the line is still down
    await player.locator('form.roll-form button[type="submit"]').tap({ force: true });
    await submitAgain(player);
    step("the screen unlocks: the page is shown, the line is back");
    gate.swallow = () => false;
    gate.open = true;
    await player.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
    await connected(player);
    await player.locator("#log li.kind-roll", { hasText: "lost answer" }).first().waitFor();
    await rollFree(player);
    result.flushed = await flush(player);
    result.after = await rollFormState(player);
    result.sent = sentRolls(gate, "lost answer");
    result.rolls = await rollsShown(player, "lost answer");
    await gm.waitForFunction(() => document.querySelectorAll("#log li.kind-roll").length > 0);
    result.gmRolls = await rollsShown(gm, "lost answer");
    result.welcome = gate.frames.map((f) => JSON.parse(f)).filter((m) => m.type === "welcome").map((m) => m.resume ?? m.recovered ?? null);
  },

  /** The keyboard up over half of a 360×740 phone while the player types a formula
   * (the viewport 370 px tall, as a browser that resizes it for the keyboard has it):
   * the field keeps the focus and what is typed, the page does not scroll sideways,
   * the field and its Roll button can be brought into the half that shows, and the
   * keyboard's Go (Enter) rolls, once. */
  async keyboard(browser, result) {
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "en-US" }, trouble,
      `${BASE}/tables/web`, TOKENS.web.player, { tap: true });
    const formula = player.locator('form.roll-form input[name="formula"]');
    await formula.tap();
    await player.setViewportSize({ width: 360, height: 370 }); // the keyboard is up
    await player.keyboard.type("3d6");
    await player.locator('form.roll-form input[name="label"]').fill("half a screen");
    await formula.focus();
    const seen = (selector) => player.$eval(selector, (node) => {
      node.scrollIntoView({ block: "nearest" });
      const box = node.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight && box.left >= 0 && box.right <= window.innerWidth;
    });
    result.typing = await player.evaluate(() => ({
      focus: `${document.activeElement.tagName}[${document.activeElement.name}]`,
      value: document.activeElement.value, page: document.documentElement.scrollWidth, screen: window.innerWidth,
      height: window.innerHeight,
    }));
    result.fieldShown = await seen('form.roll-form input[name="formula"]');
    result.buttonShown = await seen('form.roll-form button[type="submit"]');
    await player.keyboard.press("Enter");
    await player.locator("#log li.kind-roll", { hasText: "half a screen" }).first().waitFor();
    await rollFree(player);
    result.flushed = await flush(player);
    result.sent = sentRolls(player.gate, "half a screen");
    result.rolls = await rollsShown(player, "half a screen");
    result.outcome = await player.$eval("form.roll-form .form-status", (line) => line.textContent);
  },

  /** "Count the dice" tapped three times on a slow line: one `stats` request, the
   * button aria-disabled while it waits, the charts drawn once it is answered. */
  async count(browser, result) {
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player,
      { tap: true });
    const gate = player.gate;
    await roll(player, "2d6", "to count");
    const asked = () => gate.sent.map((f) => JSON.parse(f)).filter((m) => m.type === "stats").length;
    step("a slow line: the question waits at the proxy");
    gate.hold = true;
    await player.locator("#stats-form button").evaluate((button) => {
      for (let i = 0; i < 3; i++) button.click();
    });
    await player.waitForFunction(() => document.getElementById("stats").getAttribute("aria-busy") === "true");
    result.waiting = { asked: asked(),
      button: await player.locator("#stats-form button").getAttribute("aria-disabled") };
    gate.release();
    await player.waitForSelector("#stats .stats-summary");
    await player.waitForSelector('#stats-form button:not([aria-disabled="true"])');
    result.after = { asked: asked(), summaries: await player.locator("#stats .stats-summary").count() };
  },

  /** A phone reloads the tab it discarded in the background: the page joins again
   * with the token this tab joined with (not another tab); a token refused is
   * forgotten, so the next reload asks for one and tries nothing. */
  async reload(browser, result) {
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    await roll(player, "2d6", "before the reload");
    const sockets = [];
    player.on("websocket", (socket) => sockets.push(socket.url()));
    step("the tab comes back: reloaded");
    await player.reload();
    // joined again and shown the log from before (its entries are in when the page
    // marks it read), or asking for a token
    await player.waitForSelector('body[data-status="connected"][data-history], #join:not([hidden])');
    result.reloaded = await player.evaluate(() => ({
      status: document.body.dataset.status, join: !document.getElementById("join").hidden,
      address: location.href, rolls: document.querySelectorAll("#log li.kind-roll").length,
    }));
    step("another tab of the same browser");
    const other = await player.context().newPage();
    await other.goto(`${BASE}/tables/web`);
    await other.waitForSelector("#join:not([hidden])");
    result.otherTab = await other.evaluate(() => document.body.dataset.status);
    step("a token the server refuses");
    await player.evaluate(() => sessionStorage.setItem("rollbridge.token.web", "rbt_revoked-long-ago"));
    await player.reload();
    await player.waitForSelector('body[data-status="refused"]');
    const before = sockets.length;
    await player.reload();
    await player.waitForSelector("#join:not([hidden])");
    result.afterRefusal = { status: await player.evaluate(() => document.body.dataset.status),
      sockets: sockets.length - before };
  },

  /** A German phone's player types a roll, and the screen locks: the tab, in the
   * background, is frozen (the DevTools protocol's Page.setWebLifecycleState), then
   * discarded and loaded anew when the player comes back to it. A discarded page
   * goes with no event on the way out: the test stands in for that by a reload of a
   * page that never hears its `pagehide`. What was typed comes back in the
   * form, and the line beside it is said again. It was lost: the form came back empty. */
  async discarded(browser, result) {
    const player = await openPage(browser, "player", { ...SMALL_PHONE, locale: "de-DE" }, trouble);
    // a discarded page hears no pagehide: this page never does (put in through the
    // DevTools protocol, which the page's policy does not govern)
    await player.addInitScript(() => {
      const add = EventTarget.prototype.addEventListener;
      EventTarget.prototype.addEventListener = function (type, ...rest) {
        return type === "pagehide" ? undefined : add.call(this, type, ...rest);
      };
    });
    await player.goto(`${BASE}/tables/web#token=${TOKENS.web.player}`);
    await connected(player);
    const form = player.locator("form.roll-form");
    await roll(player, "2d6", "vor dem Sperren");
    result.line = await form.locator(".form-status").textContent();
    await form.locator('input[name="formula"]').fill("3d6+1");
    await form.locator('input[name="label"]').fill("Schleichen am Tor");
    step("the screen locks: the tab frozen, then discarded");
    const cdp = await player.context().newCDPSession(player);
    result.frozen = await cdp.send("Page.setWebLifecycleState", { state: "frozen" }).then(() => true, (e) => e.message);
    await cdp.send("Page.setWebLifecycleState", { state: "active" });
    step("the player comes back: the tab loaded anew");
    await player.reload();
    await player.waitForSelector('body[data-status="connected"][data-history]');
    await player.locator("form.roll-form").waitFor();
    result.after = await player.evaluate(() => {
      const again = document.querySelector("form.roll-form");
      return { formula: again.elements.formula.value, label: again.elements.label.value,
        line: again.querySelector(".form-status")?.textContent ?? null };
    });
  },

  /** An English phone's player (and the GM's phone, with its controls): every
   * button, list, field and fold shown, as [what, width, height] when narrower or
   * lower than a finger's 44 px. */
  async fingers(browser, result) {
    const url = `${BASE}/tables/web`;
    const phone = { ...SMALL_PHONE, locale: "en-US" };
    const targets = (page) => page.$$eval(
      "button, select, summary, input:not([type=checkbox]):not([type=radio])",
      (nodes) => nodes.filter((node) => node.getClientRects().length && !node.closest("[hidden]"))
        .map((node) => {
          const box = node.getBoundingClientRect();
          return [`${node.tagName}[${node.getAttribute("name") ?? node.id ?? ""}] ${node.textContent.trim()}`,
            Math.round(box.width), Math.round(box.height)];
        }).filter(([, width, height]) => width < 44 || height < 44));
    const player = await joinedPage(browser, "player", phone, trouble, url, TOKENS.web.player);
    await player.selectOption("#action-select", "attack");
    await player.locator("form.action-form").waitFor();
    result.player = await targets(player);
    const gm = await joinedPage(browser, "gm", phone, trouble, url, TOKENS.web.gm);
    await gm.locator('form.roll-form input[name="secret"]').waitFor();
    result.gm = await targets(gm);
  },

  /** A player leaves on a shared phone or computer (*Leave*): the tab forgets the
   * token, so the next person reloading (or reopening) the tab is asked for one. */
  async leave(browser, result) {
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    await roll(player, "2d6", "before leaving");
    const sockets = [];
    player.on("websocket", (socket) => sockets.push(socket.url()));
    step("Leave");
    await player.getByRole("button", { name: "Leave" }).click();
    await player.waitForSelector("#join:not([hidden])");
    result.left = await player.evaluate(() => ({
      kept: sessionStorage.getItem("rollbridge.token.web"), table: !document.getElementById("table").hidden,
      rolls: document.querySelectorAll("#log li.kind-roll").length, message: document.getElementById("message").textContent,
      leave: !document.getElementById("leave").hidden, focus: document.activeElement?.id,
    }));
    step("the tab reloaded after leaving");
    await player.reload();
    await player.waitForSelector("#join:not([hidden])");
    result.reloaded = { status: await player.evaluate(() => document.body.dataset.status), sockets: sockets.length };
  },

  /** A shared tablet: Tukan's roll waits for the GM, the tab is hidden a moment (the
   * page keeps its lines, as for a discarded tab), Tukan comes back and, with `left`,
   * presses *Leave*; the next person opens their own link (an observer's) in the tab,
   * which loads anew, and the GM approves Tukan's roll. The page said Tukan's lines
   * to the next person, and then the GM's approval of Tukan's roll as their own.
   * With `next`, the next person's token is that one (another player's, as the
   * GM's `--new player` makes it: named "player" as Tukan's is). */
  async sharedTablet(browser, result, { left = false, next = TOKENS.approval.observer } = {}) {
    const url = `${BASE}/tables/approval`;
    const tablet = await joinedPage(browser, "tablet", EN_PHONE, trouble, url, TOKENS.approval.player);
    await tapRoll(tablet, "2d6", "Tukan's own");
    const status = tablet.locator("form.roll-form .form-status");
    await tablet.waitForFunction(() => /\(p\d+\)/.test(document.querySelector("form.roll-form .form-status")
      ?.textContent ?? ""));
    const pending = (await status.textContent()).match(/\((p\d+)\)/)[1];
    result.waiting = await tablet.textContent("#message");
    step("the tab hidden a moment, then shown again");
    await tablet.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
      document.dispatchEvent(new Event("visibilitychange"));
      delete document.visibilityState;
      document.dispatchEvent(new Event("visibilitychange"));
    });
    await connected(tablet);
    if (left) {
      step("Leave");
      await tablet.getByRole("button", { name: "Leave" }).click();
      await tablet.waitForSelector("#join:not([hidden])");
      result.kept = await tablet.evaluate(() => Object.keys(sessionStorage)
        .filter((key) => /^rollbridge\.(lines|forms)\./.test(key)));
    }
    step("the next person opens their own link in the tab");
    await tablet.goto(`${url}#token=${next}`);
    await tablet.reload();
    await tablet.waitForSelector('body[data-status="connected"][data-history]');
    result.shown = await tablet.evaluate(() => ({
      role: document.getElementById("role").textContent, message: document.getElementById("message").textContent,
      label: document.querySelector('form.roll-form input[name="label"]')?.value ?? null,
    }));
    const seq = await seqOf(tablet);
    step("the GM approves Tukan's roll");
    await gmRequest(tablet, "approval", TOKENS.approval.gm, { type: "approve", id: "shared-approve", request: pending });
    await waitSeq(tablet, seq + 1);
    await tablet.locator("#log li.kind-roll", { hasText: "Tukan's own" }).first().waitFor();
    result.after = await tablet.textContent("#message");
  },

  /** The same, Tukan having pressed *Leave* first. */
  sharedTabletLeft(browser, result) {
    return cases.sharedTablet(browser, result, { left: true });
  },

  /** The same, the next person another player whose token has the same name. */
  sharedTabletSameName(browser, result) {
    return cases.sharedTablet(browser, result, { next: TOKENS.approval.samename });
  },

  /** The page's main landmark, where a screen reader's "main" key jumps: the join
   * form before joining, the table after. */
  async landmarks(browser, result) {
    const page = await openPage(browser, "stranger", { ...PHONE, locale: "de-DE" }, trouble);
    await page.goto(`${BASE}/tables/web`);
    await page.waitForSelector("#join:not([hidden])");
    const mains = () => page.getByRole("main").evaluateAll((nodes) => nodes.map((node) => ({
      join: Boolean(node.querySelector("#join-form")), log: Boolean(node.querySelector("#log")) })));
    result.before = await mains();
    await page.fill("#token", TOKENS.web.player);
    await page.press("#token", "Enter");
    await connected(page);
    await page.waitForSelector("#table:not([hidden])");
    result.after = await mains();
  },

  /** The contrast of what the page says in red — the top bar refused or offline,
   * an error beside a form, a downed actor's status — against what is behind it. */
  async contrast(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    await gmRequest(gm, "web", TOKENS.web.gm, { type: "adjust", id: "down", actor: "rook", track: "physical",
      delta: 10 });
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    await player.waitForSelector('#actors [data-actor="rook"].status-down, #actors [data-actor="rook"].status-dying, '
      + '#actors [data-actor="rook"].status-dead');
    result.down = await contrastOf(player, '#actors [data-actor="rook"] .status');
    step("each die of a roll with a dropped one, as axe's color-contrast judges it");
    const kept = await roll(player, "4d6kh3", "three of four");
    result.dice = await diceLooks(player, kept);
    result.diceContrast = (await sceneContrasts(player, "rgb(255, 255, 255)"))
      .filter((text) => /^span\.die(\.|$)/.test(text.what));
    await tapRoll(player, "2d", "a typo");
    await player.waitForSelector('form.roll-form .form-status[data-kind="error"]');
    result.formError = await contrastOf(player, "form.roll-form .form-status");
    result.messageError = await contrastOf(player, "#message");
    await player.context().setOffline(true);
    await player.waitForSelector('body[data-status="offline"]');
    result.offline = await contrastOf(player, "#status");
    await player.context().setOffline(false);
    const stranger = await openPage(browser, "stranger", EN_PHONE, trouble);
    await stranger.goto(`${BASE}/tables/web#token=rbt_wrong-token-entirely`);
    await stranger.waitForSelector('body[data-status="refused"]');
    result.refused = await contrastOf(stranger, "#status");
  },

  /** The stream overlay, over whatever a stream shows behind it: every text on
   * it reads on a white scene and on a black one; one main landmark, named by a
   * heading (the table's name) that a screen reader hears and the stream never
   * shows. Each kind of die (dropped, exploded, success) and a downed actor. */
  async overlay(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    await gmRequest(gm, "web", TOKENS.web.gm, { type: "adjust", id: "down", actor: "rook", track: "physical",
      delta: 10 });
    const screen = { viewport: { width: 1280, height: 720 }, locale: "en-US" };
    const overlay = await joinedPage(browser, "overlay", screen, trouble, `${BASE}/tables/web/overlay`,
      TOKENS.web.observer);
    await overlay.waitForSelector('#actors [data-actor="rook"].status-down, #actors [data-actor="rook"].status-dying, '
      + '#actors [data-actor="rook"].status-dead');
    result.scenes = {};
    for (const [label, formula] of [["kept", "4d6kh3"], ["boom", "4d6x"], ["count", "6d6cs>=5"]]) {
      const seq = await roll(gm, formula, label);
      await overlay.waitForSelector(`#latest .shown[data-seq="${seq}"]`);
      result.scenes[label] = {
        tags: await overlay.$$eval("#latest .die", (dice) => dice.flatMap((die) => [...die.classList].slice(1))),
        white: await sceneContrasts(overlay, "rgb(255, 255, 255)"),
        black: await sceneContrasts(overlay, "rgb(0, 0, 0)"),
      };
    }
    result.landmarks = await overlay.getByRole("main").evaluateAll((nodes) => nodes.map((node) => ({
      latest: Boolean(node.querySelector("#latest")), actors: Boolean(node.querySelector("#actors")),
      message: Boolean(node.querySelector("#message")) })));
    const headings = await overlay.getByRole("heading", { level: 1 }).evaluateAll((nodes) => nodes.map((node) =>
      ({ text: node.textContent, width: node.getBoundingClientRect().width })));
    result.heading = { count: headings.length, ...headings[0],
      names: await overlay.getByRole("main", { name: "Friday run" }).count() };
    result.outside = await overlay.evaluate(() => [...document.body.children]
      .filter((node) => node.tagName !== "MAIN" && node.tagName !== "SCRIPT").map((node) => node.tagName));
    step("an overlay whose token is refused says so, readably");
    const refused = await openPage(browser, "refused-overlay", screen, trouble);
    await refused.goto(`${BASE}/tables/web/overlay#token=rbt_wrong-token-entirely`);
    await refused.waitForSelector('body[data-status="refused"]');
    await refused.waitForSelector("#message:not(:empty)");
    result.refused = { white: await sceneContrasts(refused, "rgb(255, 255, 255)"),
      black: await sceneContrasts(refused, "rgb(0, 0, 0)") };
  },

  /** The GM double-clicks Next turn, then Undo: one turn ended, one undo, no error. */
  async doubleClick(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm, { tap: true });
    await gm.click('#encounter button[name="start"]');
    await gm.waitForSelector('#encounter button[name="next"]');
    const sent = (type) => gm.gate.sent.map((f) => JSON.parse(f)).filter((m) => m.type === type).length;
    const kinds = () => gm.$$eval("#log li[data-seq]", (items) => items.map((li) =>
      [...li.classList].find((c) => c.startsWith("kind-"))));
    step("a double click on Next turn");
    let seq = Number(await gm.evaluate(() => document.body.dataset.seq));
    await gm.locator('#encounter button[name="next"]').dblclick();
    await gm.waitForFunction((s) => Number(document.body.dataset.seq) > s, seq);
    // the second click's request, had there been one, went out with the first
    const turns = sent("encounter.next");
    step("a double click on Undo");
    seq = Number(await gm.evaluate(() => document.body.dataset.seq));
    await gm.locator('#history button[name="undo"]').dblclick();
    await gm.waitForFunction((s) => Number(document.body.dataset.seq) > s, seq);
    await gm.waitForFunction(() => !document.querySelector('#history button[name="undo"]').dataset.busy);
    result.sent = { next: turns, undo: sent("undo") };
    result.kinds = await kinds();
    result.message = { text: await gm.textContent("#message"),
      kind: await gm.evaluate(() => document.getElementById("message").dataset.kind ?? null) };
  },

  /** After a tap at the bottom of a phone's page, the result (or the error) shows
   * beside the form, on screen. */
  async result(browser, result) {
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player,
      { tap: true });
    step("a roll");
    await tapRoll(player, "2d6", "where is it");
    await player.waitForSelector("form.roll-form .form-status:not(:empty)");
    const entry = player.locator("#log li.kind-roll", { hasText: "where is it" }).first();
    await entry.waitFor();
    const seq = Number(await entry.getAttribute("data-seq"));
    const frame = player.gate.frames.map((f) => JSON.parse(f)).find((m) => m.type === "event" && m.seq === seq);
    result.roll = { ...(await onScreen(player, "form.roll-form .form-status")), frameText: frame?.data?.text ?? null,
      logTop: (await onScreen(player, `#log li[data-seq="${seq}"]`)).top };
    step("a typo in the dice");
    await tapRoll(player, "2d6+", "typo");
    await player.waitForSelector('form.roll-form .form-status[data-kind="error"]');
    result.error = { ...(await onScreen(player, "form.roll-form .form-status")),
      message: await player.textContent("#message"),
      code: await player.getAttribute("form.roll-form .form-status", "data-code"),
      messageCode: await player.getAttribute("#message", "data-code") };
    step("an attack");
    await tukanHitsRook(player);
    const attack = player.locator("#log li.kind-resolution").first();
    await attack.waitFor();
    result.attack = { ...(await onScreen(player, 'form.action-form[data-action="attack"] .form-status')),
      narration: await attack.locator(".narration").first().textContent(),
      message: await player.textContent("#message"),
      messageCode: await player.getAttribute("#message", "data-code") };
  },

  /** A request waiting for the GM: the player's page says when the GM approved or
   * rejected it. */
  async approval(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/approval`,
      TOKENS.approval.gm);
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/approval`,
      TOKENS.approval.player);
    // what a screen reader hears: each text the page's live regions say (the
    // message line, a status; the visually hidden log of announcements)
    await player.evaluate(() => {
      window.rbHeard = [];
      const message = document.getElementById("message");
      new MutationObserver(() => message.textContent && window.rbHeard.push(message.textContent))
        .observe(message, { childList: true, characterData: true, subtree: true });
      new MutationObserver((records) => records.forEach((record) => record.addedNodes
        .forEach((node) => window.rbHeard.push(node.textContent))))
        .observe(document.getElementById("announce"), { childList: true });
    });
    const heard = () => player.evaluate(() => window.rbHeard.length);
    const heardFrom = (from) => player.evaluate((at) => window.rbHeard.slice(at), from);
    const ask = async (formula, label) => {
      await tapRoll(player, formula, label);
      await player.waitForFunction(() => document.getElementById("message").textContent.includes("approval"));
      const waitingText = await player.textContent("#message");
      const item = gm.locator("#pending li.pending-item", { hasText: formula });
      await item.waitFor();
      return { item, waitingText };
    };
    step("approved");
    const first = await ask("2d6+1", "may I");
    let from = await heard();
    await first.item.locator('button[name="approve"]').click();
    await player.locator("#log li.kind-roll", { hasText: "may I" }).first().waitFor();
    await player.waitForFunction((before) => document.getElementById("message").textContent !== before,
      first.waitingText).catch(() => {});
    result.approved = { waiting: first.waitingText, message: await player.textContent("#message"),
      status: await player.textContent("form.roll-form .form-status"), heard: await heardFrom(from) };
    step("rejected");
    const second = await ask("3d6", "no way");
    from = await heard();
    await second.item.locator('button[name="reject"]').click();
    await player.locator("#log li.kind-approval-rejected").first().waitFor();
    await player.waitForFunction((before) => document.getElementById("message").textContent !== before,
      second.waitingText).catch(() => {});
    result.rejected = { waiting: second.waitingText, message: await player.textContent("#message"),
      status: await player.textContent("form.roll-form .form-status"), heard: await heardFrom(from) };
  },

  /** Back online or shown again: the page reconnects at once, not at the backoff's
   * next step — in the event's own handler, so the status is "connecting" when the
   * event returns (no clock read); offline, it says so at once — the top bar says
   * it when the browser's `offline` reaches a listener after the page's. */
  async reconnect(browser, result) {
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player,
      { tap: true });
    const gate = player.gate;
    let attempts = 0;
    const down = async () => {
      gate.open = false;
      gate.drop();
      await player.waitForSelector('body[data-status="waiting"]');
      // four refused tries (0.25 + 0.5 + 1 + 2 s at least): the next one waits 4–8 s
      const start = gate.attempts;
      await gate.until(() => gate.attempts - start >= 4);
      attempts = gate.attempts - start;
      await player.waitForSelector('body[data-status="waiting"]'); // the fourth refusal, heard
    };
    const backIn = async (how) => {
      gate.open = true;
      const seen = await player.evaluate((event) => {
        const before = document.body.dataset.status;
        if (event === "online") window.dispatchEvent(new Event("online"));
        else document.dispatchEvent(new Event("visibilitychange"));
        return { before, after: document.body.dataset.status };
      }, how);
      await connected(player);
      return { ...seen, attempts };
    };
    step("online");
    await down();
    result.reconnectButton = await player.isVisible("#reconnect");
    result.online = await backIn("online");
    step("visibilitychange");
    await down();
    result.visible = await backIn("visibilitychange");
    step("offline");
    await player.evaluate(() => window.addEventListener("offline", () => {
      window.saidOffline = document.getElementById("status").textContent;
    }, { once: true }));
    await player.context().setOffline(true);
    await player.waitForFunction(() => window.saidOffline !== undefined);
    result.offline = { said: await player.evaluate(() => window.saidOffline),
      status: await player.textContent("#status"), data: await player.evaluate(() => document.body.dataset.status) };
    await player.context().setOffline(false);
    await connected(player);
  },

  /** The GM adds an actor while the player types: what was typed stays, and so does
   * the focus with its caret. */
  async keep(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    await player.selectOption("#action-select", "attack");
    const action = player.locator('form.action-form[data-action="attack"]');
    await action.locator('input[name="target"][value="rook"]').check();
    const form = player.locator("form.roll-form");
    await form.locator('input[name="formula"]').fill("5d6");
    const label = form.locator('input[name="label"]');
    await label.fill("Tukan dodges the");
    await label.press("End");
    step("the GM adds an NPC");
    result.added = (await addActor(gm, "web", TOKENS.web.gm, { id: "npc-x", name: "Guard C",
      sheet: { body: 4, combat_pool: 3, armor: { ballistic: 4, impact: 2 } }, controllers: [] })).type;
    await player.waitForSelector('#actors [data-actor="npc-x"]');
    await player.waitForSelector('form.action-form input[name="target"][value="npc-x"]');
    result.after = await player.evaluate(() => {
      const roll = document.querySelector("form.roll-form");
      const focused = document.activeElement;
      return {
        formula: roll.elements.formula.value, label: roll.elements.label.value,
        focus: `${focused.tagName}[${focused.name ?? ""}]`, caret: focused.selectionStart ?? null,
        target: document.querySelector('form.action-form input[name="target"]:checked')?.value ?? null,
      };
    });
    await player.keyboard.type(" bullet");
    result.typed = await form.locator('input[name="label"]').inputValue();
  },

  /** A screen reader hears new results, the player's own, the line lost and back;
   * after joining by keyboard the focus is on the table's heading. */
  async a11y(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    const player = await openPage(browser, "player", EN_PHONE, trouble);
    const gate = await tapWebSocket(player);
    await player.goto(`${BASE}/tables/web`);
    await player.waitForSelector("#join-form:not([hidden])");
    await player.focus("#token");
    await player.keyboard.type(TOKENS.web.player);
    await player.keyboard.press("Enter");
    await connected(player);
    await player.waitForSelector("#table:not([hidden])");
    // the log from before is in (the last thing joining does), so nothing later moves the focus
    await player.waitForSelector("body[data-history]");
    result.focus = await player.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
    const live = () => player.evaluate(() => {
      const region = document.querySelector('[aria-live="polite"]:not(#message)');
      return region ? { id: region.id, role: region.getAttribute("role"), lines: [...region.children].map((p) => p.textContent),
        hidden: region.getBoundingClientRect().width <= 1 } : null;
    });
    const heard = (text) => player.waitForFunction((t) =>
      [...document.querySelectorAll('[aria-live="polite"]:not(#message) > *')].some((p) => p.textContent.includes(t)),
    text).catch(() => {});
    step("the GM rolls");
    await roll(gm, "1d6", "gm roll");
    // told in the same handler that puts it in the player's log
    await player.locator("#log li.kind-roll", { hasText: "gm roll" }).first().waitFor();
    await heard("gm roll");
    step("the player rolls");
    await roll(player, "2d6", "own roll");
    await heard("own roll");
    result.rolls = await live();
    step("the line drops and comes back");
    gate.open = false;
    gate.drop();
    await player.waitForSelector('body[data-status="waiting"]');
    await heard("lost");
    gate.open = true;
    await connected(player);
    await heard("restored");
    result.line = await live();
  },

  /** A die's meaning in words for a screen reader (dropped, exploded, success: on
   * screen a strike-through, an outline, a colour), in the page's language; a plain
   * roll's dice heading says its formula once. */
  async dice(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "de-DE" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    const rolls = { kept: "4d6kh3", boom: "4d6x", count: "6d6cs>=5" };
    const seqs = {};
    for (const [label, formula] of Object.entries(rolls)) seqs[label] = await roll(player, formula, label);
    const read = (page) => Promise.all(Object.entries(seqs).map(async ([label, seq]) => {
      const entry = page.locator(`#log li[data-seq="${seq}"]`);
      await entry.waitFor();
      const shown = await entry.evaluate((li) => ({
        heads: [...li.querySelectorAll(".dice-head")].map((n) => n.textContent),
        dice: [...li.querySelectorAll(".die")].map((die) => {
          const next = die.nextElementSibling;
          const said = next?.classList.contains("visually-hidden") ? next : null;
          return { text: die.textContent, tags: [...die.classList].filter((c) => c !== "die").map((c) => c.slice(4)),
            title: die.title,
            hidden: die.getAttribute("aria-hidden"), said: said?.textContent ?? null,
            saidWidth: said ? said.getBoundingClientRect().width : null };
        }),
      }));
      // what a screen reader gets of the dice: the accessibility tree's text
      const tree = await entry.locator(".dice").first().ariaSnapshot();
      return [label, { ...shown, tree }];
    }));
    result.en = Object.fromEntries(await read(player));
    result.de = Object.fromEntries(await read(gm));
  },

  /** On a phone the keyboard's focus goes in the order the panels are shown (the
   * log before the forms), and a region that scrolls inside the page is in the
   * focus order and named (axe's scrollable-region-focusable). */
  async focus(browser, result) {
    const player = await joinedPage(browser, "player", EN_PHONE, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    for (let i = 0; i < 10; i++) await roll(player, "2d6", `fill ${i}`);
    await player.selectOption("#action-select", "attack");
    result.stops = await focusStops(player);
    // every element that scrolls inside the page: in the focus order, and named
    result.scrollers = await player.evaluate(() => [...document.querySelectorAll("#table *")]
      .filter((node) => ["auto", "scroll"].includes(getComputedStyle(node).overflowY) && node.scrollHeight > node.clientHeight)
      .map((node) => ({ id: node.id, tabIndex: node.tabIndex })));
    result.logNamed = await player.getByRole("list", { name: "Log", exact: true }).count();
  },

  /** On the GM's desktop page (three columns) the keyboard's focus goes through the
   * panels column by column, each column from the top. */
  async deskFocus(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    await roll(gm, "2d6", "something to undo");
    await gm.waitForSelector('#history button[name="undo"]:not([aria-disabled="true"])');
    result.stops = await focusStops(gm);
  },

  /** A German phone on a slow line, made a held one: no file of the page is
   * answered until the page has asked for every module (RB_MODULES: preloaded, not
   * level by level), and no language file until both were asked for, the socket
   * opened and the top bar said "loading…" in German — what the test saw then is
   * recorded, and the files are released; it never says the English "not
   * connected". Nothing here waits a time: a page that never asks for what is
   * awaited is given up on after a bound, and fails on what was recorded. */
  async loading(browser, result) {
    const modules = JSON.parse(env.RB_MODULES);
    const words = ["/static/web/lang/de.json", "/static/web/lang/en.json"];
    const open = async (name, url) => {
      const page = await openPage(browser, name, { ...PHONE, locale: "de-DE" }, trouble);
      const load = { asked: [], socket: false };
      const { until, changed: hear } = waiter(); // conditions checked at every request and socket
      const gate = () => {
        let release;
        const opened = new Promise((resolve) => { release = resolve; });
        return { opened, release };
      };
      const files = gate();
      const catalogs = gate();
      page.on("websocket", () => {
        load.socket = true;
        hear();
      });
      await page.route(/\/static\//, async (route) => {
        const path = new URL(route.request().url()).pathname;
        load.asked.push(path);
        hear();
        await (words.includes(path) ? catalogs.opened : files.opened);
        await route.continue();
      });
      // every text the top bar shows, from the markup's on
      await page.addInitScript(() => {
        window.statusTexts = [];
        const note = () => {
          const text = document.getElementById("status")?.textContent;
          if (text && window.statusTexts.at(-1) !== text) window.statusTexts.push(text);
        };
        new MutationObserver(note).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await page.goto(url, { waitUntil: "commit" });
      // nothing of the page answered yet: it asks for every module now, or never
      const everyModule = await until(() => modules.every((path) => load.asked.includes(path)), 20_000);
      load.beforeAnswer = { complete: everyModule, asked: [...new Set(load.asked)].sort() };
      files.release();
      // the modules are in, the words held: both files asked for, the socket opened
      // (with a token), "loading…" in German on the top bar
      const wanted = () => words.every((path) => load.asked.includes(path)) && (!url.includes("#token=") || load.socket);
      const both = await until(wanted, 20_000);
      const loading = await page.waitForFunction(() => document.getElementById("status").textContent === "wird geladen…")
        .then(() => true, () => false);
      load.held = { complete: both, catalogs: load.asked.filter((path) => words.includes(path)).sort(),
        socket: load.socket, status: await page.textContent("#status"), loading };
      // the page's other first words, the words still held: the page's language already
      load.firstWords = await page.evaluate(() => ({ lang: document.documentElement.lang,
        label: document.querySelector('label[for="language"]').textContent, title: document.title }));
      catalogs.release();
      return { page, load };
    };
    step("a player's link");
    const player = await open("player", `${BASE}/tables/web#token=${TOKENS.web.player}`);
    await connected(player.page);
    result.player = { statuses: await player.page.evaluate(() => window.statusTexts), before: player.load.beforeAnswer,
      held: player.load.held, firstWords: player.load.firstWords };
    step("the page without a token");
    const stranger = await open("stranger", `${BASE}/tables/web`);
    await stranger.page.waitForSelector("#join:not([hidden])");
    result.stranger = { statuses: await stranger.page.evaluate(() => window.statusTexts), held: stranger.load.held,
      join: await stranger.page.textContent('#join-form button[type="submit"]') };
  },

  /** A name longer than a phone is wide wraps: nothing scrolls sideways. */
  async keepFocus(browser, result) {
    const focused = (page) => page.evaluate(() => {
      const node = document.activeElement;
      return node === document.body ? "body"
        : `${node.tagName.toLowerCase()}[name=${node.name}]${node.closest("[data-pending]") ? `@${node.closest("[data-pending]").dataset.pending}` : ""}`;
    });
    // the GM ends turns from the keyboard: Next turn, Enter, Enter
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    await gmRequest(gm, "web", TOKENS.web.gm, { type: "encounter.start", id: "focus-start", order: ["tukan", "rook", "guard-a"] });
    await gm.waitForSelector('#encounter button[name="next"]');
    await gm.focus('#encounter button[name="next"]');
    result.turns = [];
    for (const _ of [1, 2]) {
      const seq = await seqOf(gm);
      await gm.keyboard.press("Enter");
      await waitSeq(gm, seq + 1);
      result.turns.push(await focused(gm));
      if (result.turns.at(-1) !== "button[name=next]") break; // an Enter on the body ends no turn
    }
    // on Next turn while the GM's actor list changes (an actor added): the table's
    // change draws the encounter anew
    await gm.focus('#encounter button[name="next"]');
    await addActor(gm, "web", TOKENS.web.gm, { id: "late", name: "Late", sheet: { body: 4, combat_pool: 3,
      armor: { ballistic: 4, impact: 2 } }, controllers: [] });
    await gm.waitForSelector('#actors [data-actor="late"]');
    result.meanwhile = await focused(gm);
    // the GM on a request's Approve while another request comes in
    const asking = await joinedPage(browser, "asking", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/approval`,
      TOKENS.approval.gm);
    for (const n of [1, 2]) {
      await gmRequest(asking, "approval", TOKENS.approval.player, { type: "roll", id: `ask-${n}`, formula: "1d6", label: `ask ${n}` });
    }
    await asking.waitForFunction(() => document.querySelectorAll("#pending [data-pending]").length === 2);
    const first = await asking.$eval("#pending [data-pending]", (item) => item.dataset.pending);
    await asking.focus(`#pending [data-pending="${first}"] button[name="approve"]`);
    await gmRequest(asking, "approval", TOKENS.approval.player, { type: "roll", id: "ask-3", formula: "1d6", label: "ask 3" });
    await asking.waitForFunction(() => document.querySelectorAll("#pending [data-pending]").length === 3);
    result.pending = { first, focus: await focused(asking) };
    // what a screen reader hears of each button: its name and its description (Chromium's
    // accessibility tree, by the DevTools protocol)
    const cdp = await asking.context().newCDPSession(asking);
    const { root } = await cdp.send("DOM.getDocument", { depth: -1 });
    const { nodeIds } = await cdp.send("DOM.querySelectorAll", { nodeId: root.nodeId, selector: "#pending li > button" });
    result.heard = [];
    for (const nodeId of nodeIds) {
      const { nodes } = await cdp.send("Accessibility.getPartialAXTree", { nodeId, fetchRelatives: false });
      result.heard.push([nodes[0].name?.value ?? null, nodes[0].description?.value ?? null]);
    }
    // approved with Enter: its row is gone, the next request's Approve has the focus
    const before = await seqOf(asking);
    await asking.keyboard.press("Enter");
    await waitSeq(asking, before + 1);
    await asking.waitForFunction(() => document.querySelectorAll("#pending [data-pending]").length === 2);
    result.approved = await focused(asking);
  },

  async language(browser, result) {
    // what a page shows of its language: the list, the words, what the server was asked
    const wordsOf = (page) => page.evaluate(() => {
      const chooser = document.getElementById("language");
      const box = chooser.getBoundingClientRect();
      return {
        lang: document.documentElement.lang, chosen: chooser.value, table: document.getElementById("table").lang,
        options: [...chooser.options].map((option) => [option.value, option.textContent, option.lang]),
        name: chooser.labels[0]?.textContent ?? null, height: Math.round(box.height),
        log: document.getElementById("log-title").textContent, join: document.querySelector("#join-form button").textContent,
        status: document.body.dataset.status, joinShown: !document.getElementById("join").hidden,
        page: document.documentElement.scrollWidth, screen: window.innerWidth,
      };
    });
    const hellos = (gate) => gate.sent.map((f) => JSON.parse(f)).filter((m) => m.type === "hello").map((m) => m.locale);
    const czech = await joinedPage(browser, "czech", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.player, { tap: true });
    await czech.locator("form.roll-form").waitFor();
    result.before = await wordsOf(czech);
    // the Czech phone's player reads Russian better: chosen, the page loads anew in it
    await Promise.all([czech.waitForEvent("load"), czech.selectOption("#language", "ru")]);
    await connected(czech);
    await czech.locator("form.roll-form").waitFor();
    result.after = await wordsOf(czech);
    result.hellos = hellos(czech.gate);
    // kept for this server: another tab of the browser opens in Russian (it asks for a token)
    const other = await czech.context().newPage();
    await other.goto(`${BASE}/tables/web`);
    await other.waitForSelector("#join:not([hidden])");
    result.otherTab = await wordsOf(other);
    // another browser is not this one: German, as its language is
    const german = await joinedPage(browser, "german", { ...SMALL_PHONE, locale: "de-DE" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.player);
    result.german = await wordsOf(german);
    // a Swiss browser reads French first, German second: the page has no French words,
    // so German (the server reads Accept-Language so), not English
    const swiss = await openPage(browser, "swiss", { ...SMALL_PHONE, locale: "fr-CH" }, trouble);
    await swiss.addInitScript(() => Object.defineProperty(Navigator.prototype, "languages",
      { get: () => ["fr-CH", "de-CH", "en"] }));
    swiss.gate = await tapWebSocket(swiss);
    await swiss.goto(`${BASE}/tables/web#token=${TOKENS.web.player}`);
    await connected(swiss);
    result.swiss = { ...(await wordsOf(swiss)), hellos: hellos(swiss.gate),
      loading: await swiss.evaluate(() => document.getElementById("status").lang) };
    // a slow line: the page still joining (its hello held) when the language is chosen
    const slow = await openPage(browser, "slow", { ...SMALL_PHONE, locale: "en-US" }, trouble);
    slow.gate = await tapWebSocket(slow);
    slow.gate.hold = true;
    await slow.goto(`${BASE}/tables/web#token=${TOKENS.web.player}`);
    await slow.gate.until(() => slow.gate.held.length > 0);
    await slow.waitForFunction(() => document.getElementById("language").options.length > 0);
    await Promise.all([slow.waitForEvent("load"), slow.selectOption("#language", "cs")]);
    slow.gate.held.splice(0); // the old page's hello, on a line gone with it
    slow.gate.hold = false;
    await slow.waitForSelector('body[data-status="connected"], #join:not([hidden])');
    result.slow = await wordsOf(slow);
  },

  /** The language list against what a browser holds and does: a value in
   * localStorage that is no language, storage refused, a choice while a roll waits
   * for the line. */
  async languageTrouble(browser, result) {
    const KEY = "rollbridge.web.language";
    const shown = (page) => page.evaluate(() => ({
      lang: document.documentElement.lang, chosen: document.getElementById("language").value,
      loading: document.getElementById("status").lang, table: document.getElementById("table").lang,
      message: document.getElementById("message").textContent, kind: document.getElementById("message").dataset.kind,
      status: document.body.dataset.status, images: document.querySelectorAll("img").length,
      same: window.rbSamePage === true,
    }));
    step("a stale or hostile value where the choice is kept");
    const czech = await joinedPage(browser, "czech", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble,
      `${BASE}/tables/web`, TOKENS.web.player);
    result.stale = {};
    for (const [name, value] of [["xx", "xx"], ["html", "<img src=x>"], ["long", "de".repeat(5120)],
      ["region", "de-AT"]]) {
      await czech.evaluate(([key, kept]) => localStorage.setItem(key, kept), [KEY, value]);
      await czech.reload();
      await connected(czech);
      result.stale[name] = await shown(czech);
    }
    await czech.evaluate((key) => localStorage.removeItem(key), KEY);

    step("storage refused: the choice cannot be kept");
    const denied = await openPage(browser, "denied", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble);
    await denied.addInitScript(() => {
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function keep(key, value) {
        if (this === globalThis.localStorage) throw new DOMException("denied", "SecurityError");
        return setItem.call(this, key, value);
      };
    });
    await denied.goto(`${BASE}/tables/web#token=${TOKENS.web.player}`);
    await connected(denied);
    await denied.evaluate(() => { window.rbSamePage = true; });
    await denied.selectOption("#language", "de"); // its change handler has run when this returns
    result.denied = await shown(denied);

    step("a roll queued while the line is down, then another language chosen");
    const player = await joinedPage(browser, "queued", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble,
      `${BASE}/tables/web`, TOKENS.web.player, { tap: true });
    const gate = player.gate;
    gate.open = false;
    gate.drop();
    await player.waitForSelector('body[data-status="waiting"]');
    await tapRoll(player, "2d6", "before the language");
    await player.waitForSelector('form.roll-form[data-waiting="queued"]');
    await player.evaluate(() => { window.rbSamePage = true; });
    const loaded = player.waitForEvent("load");
    await player.selectOption("#language", "ru");
    result.queued = await shown(player).catch(() => ({ same: false })); // a reload can destroy the context
    gate.open = true;
    await player.evaluate(() => document.dispatchEvent(new Event("visibilitychange"))).catch(() => {});
    await loaded;
    await player.waitForFunction(() => document.documentElement.lang === "ru"
      && document.body.dataset.status === "connected" && document.body.dataset.history !== undefined);
    result.queued.after = await shown(player);
    result.queued.sent = sentRolls(gate, "before the language");
    result.queued.rolls = await rollsShown(player, "before the language");
    // the reload took the token from the tab's sessionStorage, as any reload: not
    // into localStorage (every tab, kept for good), nor back into the address
    result.queued.kept = await player.evaluate((token) => ({
      lasting: Object.keys(localStorage), tokenLasting: Object.values(localStorage).some((v) => v.includes(token)),
      tokenInAddress: location.href.includes(token) || history.state !== null && JSON.stringify(history.state).includes(token),
      tokenInTab: Object.values(sessionStorage).some((v) => v.includes(token)),
    }), TOKENS.web.player);

    step("the GM's Undo pressed while the line is down, then another language chosen");
    const gm = await joinedPage(browser, "gm-queued", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm, { tap: true });
    await roll(gm, "1d6", "to be undone");
    await gm.waitForSelector('#history button[name="undo"][aria-disabled="false"]');
    gm.gate.open = false;
    gm.gate.drop();
    await gm.waitForSelector('body[data-status="waiting"]');
    await gm.click('#history button[name="undo"]');
    await gm.evaluate(() => { window.rbSamePage = true; });
    const gmLoaded = gm.waitForEvent("load");
    await gm.selectOption("#language", "de");
    result.gmQueued = await shown(gm).catch(() => ({ same: false }));
    gm.gate.open = true;
    await gm.evaluate(() => document.dispatchEvent(new Event("visibilitychange"))).catch(() => {});
    await gmLoaded;
    await gm.waitForFunction(() => document.documentElement.lang === "de"
      && document.body.dataset.status === "connected" && document.body.dataset.history !== undefined);
    result.gmQueued.after = await shown(gm);
    result.gmQueued.sent = gm.gate.sent.map((f) => JSON.parse(f)).filter((m) => m.type === "undo").map((m) => m.id);
    result.gmQueued.undos = await gm.$$eval("#log li.kind-undo", (items) => items.length);
  },

  async wrap(browser, result) {
    const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/web`,
      TOKENS.web.gm);
    await addActor(gm, "web", TOKENS.web.gm, { id: "long", name: LONG_NAME,
      sheet: { body: 4, combat_pool: 3, armor: { ballistic: 4, impact: 2 } }, controllers: [] });
    const narrow = { ...PHONE, viewport: { width: 360, height: 740 }, locale: "de-DE" };
    const player = await joinedPage(browser, "player", narrow, trouble, `${BASE}/tables/web`, TOKENS.web.player);
    await player.waitForSelector('#actors [data-actor="long"]');
    await roll(gm, "2d6", LONG_NAME.split(" ")[0]); // a label is at most 80 characters
    await player.locator("#log li.kind-roll").first().waitFor();
    await player.selectOption("#action-select", "attack");
    await player.waitForSelector('form.action-form input[name="target"][value="long"]');
    // a phone's browser widens its layout to fit what is too wide (innerWidth grows)
    result.width = await player.evaluate((screen) => ({
      page: document.documentElement.scrollWidth, screen: window.innerWidth,
      wider: [...document.querySelectorAll("#table *")].filter((node) => node.getBoundingClientRect().right > screen + 1)
        .map((node) => `${node.tagName}.${node.className}`).slice(0, 10),
    }), narrow.viewport.width);
    const radio = await player.$eval('form.action-form input[name="target"][value="long"]', (input) => {
      const box = input.getBoundingClientRect();
      return [Math.round(box.width), Math.round(box.height)];
    });
    result.radio = radio;
    // a finger's targets: every control of the forms, and a target's whole label
    result.coarse = await player.evaluate(() => matchMedia("(pointer: coarse)").matches);
    result.small = await player.$$eval(
      "#act-panel input:not([type=checkbox]):not([type=radio]), #act-panel select, #act-panel button, #act-panel summary, #act-panel label.target",
      (nodes) => nodes.filter((node) => node.offsetParent !== null)
        .map((node) => [`${node.tagName}.${node.className}`, Math.round(node.getBoundingClientRect().height)])
        .filter(([, height]) => height < 44),
    );
    // a checkbox's tap target is its label (a tap on it checks the box): 44 px tall,
    // on the box's row; the GM's too (the secret box of each form)
    const gmPhone = await joinedPage(browser, "gmPhone", narrow, trouble, `${BASE}/tables/web`, TOKENS.web.gm);
    await gmPhone.locator('form.roll-form input[name="secret"]').waitFor();
    const checkboxes = (page) => page.$$eval('#act-panel input[type="checkbox"]', (boxes) => boxes
      .filter((box) => box.offsetParent !== null && !box.closest("label.target"))
      .map((box) => {
        const at = box.getBoundingClientRect();
        const middle = (at.top + at.bottom) / 2;
        const labels = [...box.labels].map((label) => label.getBoundingClientRect())
          .filter((rect) => rect.top <= middle && rect.bottom >= middle);
        return [box.name, Math.round(Math.max(0, ...labels.map((rect) => rect.height)))];
      }));
    result.checkboxes = [...await checkboxes(player), ...await checkboxes(gmPhone)];
  },
};

await runCase(cases, trouble);
