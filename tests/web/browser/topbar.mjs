// The top bar on a phone (tests/web/test_web_topbar.py): offline, down at the forms
// and in the log, reached by the keyboard alone, upright (360×740) and turned
// (740×360), in German and Russian (the longest words). RB_CASE: "bar".
import { axeViolations } from "./axe_run.mjs";
import { SMALL_PHONE, caseScript, gmRequest, joinedPage, roll, runCase } from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("topbar");

/** Where the bar, the connection's word and the focused element are on screen. */
const seen = (page) => page.evaluate(() => {
  const box = (node) => {
    const at = node.getBoundingClientRect();
    return { top: Math.round(at.top), bottom: Math.round(at.bottom), height: Math.round(at.height) };
  };
  const bar = document.querySelector("header.topbar");
  const status = document.getElementById("status");
  const active = document.activeElement;
  const focus = box(active);
  // what a tap in the middle of the focused element's first line hits
  const hit = document.elementFromPoint(active.getBoundingClientRect().left + 4,
    Math.min(focus.top + 8, window.innerHeight - 1));
  return {
    bar: box(bar), status: { ...box(status), text: status.textContent }, screen: window.innerHeight,
    focus: { ...focus, what: `${active.tagName}.${active.getAttribute("name") ?? active.id}`,
      hit: hit === active || active.contains(hit) },
    scrolled: Math.round(window.scrollY), wide: document.documentElement.scrollWidth,
  };
});

/** Tab (the keyboard alone) from the table's heading to the element `selector`;
 * `back`: Shift+Tab from where the focus is. */
async function tabTo(page, selector, back = false) {
  if (!back) await page.focus("#title");
  for (let i = 0; i < 300; i++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    if (await page.evaluate((wanted) => document.activeElement?.matches(wanted), selector)) return true;
  }
  return false;
}

const cases = {
  async bar(browser, result) {
    for (const [name, locale, viewport] of [
      ["de", "de-DE", { width: 360, height: 740 }],
      ["ru", "ru-RU", { width: 360, height: 740 }],
      ["deTurned", "de-DE", { width: 740, height: 360 }],
      ["ruTurned", "ru-RU", { width: 740, height: 360 }],
    ]) {
      step(name);
      const player = await joinedPage(browser, name, { ...SMALL_PHONE, viewport, locale }, trouble,
        `${BASE}/tables/web`, TOKENS.web.player);
      await player.locator("form.roll-form").waitFor();
      await player.context().setOffline(true);
      await player.waitForSelector('body[data-status="offline"]');
      const got = {};
      got.formula = (await tabTo(player, 'form.roll-form input[name="formula"]')) && await seen(player);
      got.log = (await tabTo(player, "#log")) && await seen(player);
      got.stats = (await tabTo(player, '#stats-form button[name="stats"]')) && await seen(player);
      // back up the page: what the focus reaches above comes to rest under the bar
      got.labelBack = (await tabTo(player, 'form.roll-form input[name="label"]', true)) && await seen(player);
      got.logBack = (await tabTo(player, "#log", true)) && await seen(player);
      await player.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      got.end = await seen(player);
      result[name] = got;
      await player.context().setOffline(false);
      await player.context().close();
    }
  },
};

/** Every stop of the focus from the table's heading to the page's end (Tab alone),
 * each where it rests: what it is, and whether it is hidden under the bar, past the
 * screen's bottom, or under something else (a tap on it hits another element). */
async function walk(page) {
  const stops = [];
  await page.focus("#title");
  while (stops.length < 400) {
    await page.keyboard.press("Tab");
    const stop = await page.evaluate(() => {
      const active = document.activeElement;
      if (!active || active === document.body) return null;
      const bar = document.querySelector("header.topbar").getBoundingClientRect();
      const at = active.getBoundingClientRect();
      // in the bar, or on its line (a laptop's Leave and language, held at its right end)
      const tools = active.closest(".bar-tools");
      const inBar = Boolean(active.closest("header.topbar"))
        || Boolean(tools && getComputedStyle(tools).position === "fixed");
      const x = Math.min(Math.max(at.left + 4, 0), window.innerWidth - 1);
      const y = Math.min(Math.max(at.top + Math.min(8, at.height / 2), 0), window.innerHeight - 1);
      const hit = document.elementFromPoint(x, y);
      return { what: `${active.tagName}.${active.getAttribute("name") ?? active.id ?? ""}`,
        under: !inBar && at.top < bar.bottom - 1, below: at.top >= window.innerHeight,
        covered: !(hit === active || active.contains(hit) || hit?.closest("label")?.control === active) };
    });
    if (!stop || (stops.length && stop.what === stops[0].what)) break; // out of the page, or round again
    stops.push(stop);
  }
  return stops;
}

cases.walk = async (browser, result) => {
  for (const [name, locale, viewport] of [
    ["csUpright", "cs-CZ", { width: 360, height: 740 }],
    ["ruTurned", "ru-RU", { width: 740, height: 360 }],
  ]) {
    step(`walk ${name}`);
    for (const role of ["player", "gm"]) {
      const page = await joinedPage(browser, `${name}-${role}`, { ...SMALL_PHONE, viewport, locale }, trouble,
        `${BASE}/tables/web`, TOKENS.web[role]);
      await page.locator("form.roll-form").waitFor();
      const stops = await walk(page);
      result[`${name}-${role}`] = { count: stops.length, wrong: stops.filter((s) => s.under || s.below || s.covered) };
      await page.context().close();
    }
  }
};

// Every stop of the keyboard, offline (the bar then has its Reconnect button too), and
// the connection's word scrolled down to the page's end: Czech, German and Russian on
// a phone upright and turned and on a laptop (three columns).
cases.grid = async (browser, result) => {
  for (const [size, options] of [
    ["upright", { ...SMALL_PHONE, viewport: { width: 360, height: 740 } }],
    ["turned", { ...SMALL_PHONE, viewport: { width: 740, height: 360 } }],
    ["laptop", { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 }],
  ]) {
    for (const locale of ["cs-CZ", "de-DE", "ru-RU"]) {
      const name = `${locale.slice(0, 2)}-${size}`;
      step(`grid ${name}`);
      const page = await joinedPage(browser, name, { ...options, locale }, trouble,
        `${BASE}/tables/web`, TOKENS.web.player);
      await page.locator("form.roll-form").waitFor();
      await page.context().setOffline(true);
      await page.waitForSelector('body[data-status="offline"]');
      const stops = await walk(page);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      result[name] = { count: stops.length, wrong: stops.filter((s) => s.under || s.below || s.covered),
        end: await seen(page), sticky: await page.evaluate(
          () => getComputedStyle(document.querySelector("header.topbar")).position) };
      await page.context().setOffline(false);
      await page.context().close();
    }
  }
};

// The bar offline (its Reconnect button shown) in every language, on a phone upright
// and turned and on a laptop, at the page's top and scrolled to its end: its height,
// how many lines its parts take, and whether Reconnect is on screen and in it.
cases.compact = async (browser, result) => {
  for (const [size, options] of [
    ["upright", { ...SMALL_PHONE, viewport: { width: 360, height: 740 } }],
    ["turned", { ...SMALL_PHONE, viewport: { width: 740, height: 360 } }],
    ["laptop", { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 }],
  ]) {
    for (const locale of ["cs-CZ", "de-DE", "ru-RU", "en-US"]) {
      const name = `${locale.slice(0, 2)}-${size}`;
      step(`compact ${name}`);
      const page = await joinedPage(browser, name, { ...options, locale }, trouble,
        `${BASE}/tables/web`, TOKENS.web.player);
      await page.locator("form.roll-form").waitFor();
      for (let i = 0; i < 12; i++) await roll(page, "2d6", `long page ${i}`); // a page to scroll
      await page.context().setOffline(true);
      await page.waitForSelector('body[data-status="offline"]');
      const measure = () => page.evaluate(() => {
        const bar = document.querySelector("header.topbar");
        const at = bar.getBoundingClientRect();
        const shown = [...bar.children].filter((node) => node.getBoundingClientRect().height > 1);
        // its lines: a part that starts below the bottom of the line before starts one
        let lines = 0;
        let bottom = -Infinity;
        for (const node of [...shown].sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)) {
          const box = node.getBoundingClientRect();
          if (box.top >= bottom - 1) lines += 1;
          bottom = Math.max(bottom, box.bottom);
        }
        const reconnect = document.getElementById("reconnect").getBoundingClientRect();
        return { top: Math.round(at.top), height: Math.round(at.height), lines,
          parts: shown.map((node) => node.id || node.className),
          reconnect: reconnect.height > 0 && reconnect.top >= at.top && reconnect.bottom <= at.bottom + 0.5
            && reconnect.top >= 0 && reconnect.right <= window.innerWidth,
          wide: document.documentElement.scrollWidth, screen: window.innerHeight,
          scrolled: Math.round(window.scrollY) };
      });
      const top = await measure();
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      result[name] = { top, end: await measure() };
      await page.context().setOffline(false);
      await page.context().close();
    }
  }
};

// The table's name written right to left (Hebrew), longer than the bar: cut short at
// its end, so its first words are read (RB_RTL: the table's id and player token),
// on a phone upright and turned and at 200 % zoom (a 1366 px laptop at half its
// width), and where the name's first and last letters are drawn against the heading.
cases.rtl = async (browser, result) => {
  const { table, token } = JSON.parse(process.env.RB_RTL);
  for (const [size, options] of [
    ["upright", { ...SMALL_PHONE, viewport: { width: 360, height: 740 } }],
    ["turned", { ...SMALL_PHONE, viewport: { width: 740, height: 360 } }],
    ["zoomed", { viewport: { width: 683, height: 384 }, deviceScaleFactor: 2 }],
  ]) {
    step(`rtl ${size}`);
    const page = await joinedPage(browser, size, { ...options, locale: "de-DE" }, trouble,
      `${BASE}/tables/${table}`, token);
    await page.locator("form.roll-form").waitFor();
    await page.context().setOffline(true);
    await page.waitForSelector('body[data-status="offline"]');
    result[size] = await page.evaluate(() => {
      const title = document.getElementById("title");
      const box = title.getBoundingClientRect();
      const text = title.firstChild;
      const letter = (at) => {
        const range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + 1);
        const drawn = range.getBoundingClientRect();
        return drawn.left >= box.left - 0.5 && drawn.right <= box.right + 0.5;
      };
      const bar = document.querySelector("header.topbar").getBoundingClientRect();
      return { first: letter(0), cut: title.scrollWidth > title.clientWidth, text: title.textContent,
        height: Math.round(bar.height), wide: document.documentElement.scrollWidth, screen: window.innerWidth };
    });
    await page.context().setOffline(false);
    await page.context().close();
  }
};

// A player's token with a long name (RB_TOOLS: its table and token), German, on a
// laptop (1366×768 and 1024×768): where the bar, the line under it (who the viewer
// is, Leave, the language) and the page's main content are drawn.
cases.tools = async (browser, result) => {
  const { table, token } = JSON.parse(process.env.RB_TOOLS);
  for (const [size, viewport] of [["wide", { width: 1366, height: 768 }], ["narrow", { width: 1024, height: 768 }]]) {
    step(`tools ${size}`);
    const page = await joinedPage(browser, size, { viewport, deviceScaleFactor: 1, locale: "de-DE" }, trouble,
      `${BASE}/tables/${table}`, token);
    await page.locator("form.roll-form").waitFor();
    result[size] = await page.evaluate(() => {
      const box = (node) => {
        const at = node.getBoundingClientRect();
        return { top: Math.round(at.top), bottom: Math.round(at.bottom), left: Math.round(at.left),
          right: Math.round(at.right) };
      };
      const main = [...document.querySelectorAll("main")].find((node) => !node.hidden);
      const tools = document.querySelector(".bar-tools");
      // each of the line's controls: what a click in its middle hits
      const hit = (node) => {
        const at = node.getBoundingClientRect();
        const found = document.elementFromPoint(at.left + at.width / 2, at.top + at.height / 2);
        return found === node || node.contains(found);
      };
      return { bar: box(document.querySelector("header.topbar")), tools: box(tools), main: box(main),
        role: document.getElementById("role").textContent,
        shown: [...tools.children].filter((node) => node.getBoundingClientRect().height > 1).map(hit),
        wide: document.documentElement.scrollWidth, screen: window.innerWidth };
    });
    await page.context().close();
  }
};

// Who the viewer is, Leave and the language: their landmark's name, and a long name of
// the viewer's token read whole (RB_TOOLS: its table and token) — on a 360×740 phone
// and a 1366×768 laptop, in Czech, German, Russian and English.
cases.named = async (browser, result) => {
  const { table, token } = JSON.parse(process.env.RB_TOOLS);
  for (const [size, options] of [
    ["upright", { ...SMALL_PHONE, viewport: { width: 360, height: 740 } }],
    ["laptop", { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 }],
  ]) {
    for (const locale of ["cs-CZ", "de-DE", "ru-RU", "en-US"]) {
      const name = `${locale.slice(0, 2)}-${size}`;
      step(`named ${name}`);
      const page = await joinedPage(browser, name, { ...options, locale }, trouble, `${BASE}/tables/${table}`, token);
      await page.locator("form.roll-form").waitFor();
      const aside = page.locator("aside");
      const got = await page.evaluate(() => {
        const role = document.getElementById("role");
        const at = role.getBoundingClientRect();
        return { label: document.querySelector("aside").getAttribute("aria-label"), text: role.textContent,
          title: role.title, cut: role.scrollWidth > role.clientWidth + 1,
          onScreen: at.left >= 0 && at.right <= window.innerWidth + 0.5 && at.height > 0 };
      });
      // the accessibility tree: the landmark's role and name, and what it holds as read
      got.tree = await aside.ariaSnapshot();
      // a pointer resting on the name: its tooltip is the title (Chromium draws none headless)
      await page.locator("#role").hover();
      got.hovered = await page.evaluate(() => document.querySelector("#role:hover")?.title ?? null);
      // the keyboard alone: a stop while the name is cut, its whole shown under the bar
      // while focused (drawn whole, on screen, over everything), the bar still one line
      got.stop = await page.evaluate(() => document.getElementById("role").hasAttribute("tabindex"));
      if (got.stop) {
        got.reached = await tabTo(page, "#role");
        got.focused = await page.evaluate(() => {
          const whole = document.getElementById("role-whole");
          const at = whole.getBoundingClientRect();
          const hit = document.elementFromPoint(at.left + at.width / 2, at.top + at.height / 2);
          const bar = document.querySelector("header.topbar").getBoundingClientRect();
          const tools = document.querySelector(".bar-tools").getBoundingClientRect();
          return { shown: whole.checkVisibility(), text: whole.textContent, hidden: whole.getAttribute("aria-hidden"),
            whole: whole.scrollWidth <= whole.clientWidth + 1,
            onScreen: at.left >= 0 && at.right <= window.innerWidth && at.bottom <= window.innerHeight && at.height > 0,
            over: whole.contains(hit), underBar: at.top >= bar.bottom - 1, barHeight: Math.round(bar.height),
            toolsInBar: tools.bottom <= bar.bottom + 1 };
        });
        // what axe finds there, the name focused and its whole shown (as test_web_axe runs it)
        got.axe = await axeViolations(page);
        // a pointer (a touch screen has no hover): clicked, the whole stays shown with
        // the focus gone; clicked again, not
        const shown = () => page.evaluate(() => ({ whole: document.getElementById("role-whole").checkVisibility(),
          expanded: document.getElementById("role").getAttribute("aria-expanded") }));
        // (a pointer's user did not Tab there: the keyboard's focus left first)
        await page.evaluate(() => document.activeElement.blur());
        await page.locator("#role").click();
        await page.evaluate(() => document.activeElement.blur());
        got.clicked = await shown();
        await page.locator("#role").click();
        await page.evaluate(() => document.activeElement.blur());
        got.clickedAgain = await shown();
        // what covers the page is gone at Escape, the focus where it is (WCAG 1.4.13),
        // and a press says what it does with the focus still there: Enter shows it, Enter
        // again hides it, a click the same (it showed while focused whatever was pressed)
        const focused = async () => ({ ...await shown(),
          focused: await page.evaluate(() => document.activeElement?.id ?? null) });
        got.keys = {};
        await tabTo(page, "#role");
        got.keys.tabbed = await focused();
        await page.keyboard.press("Escape");
        got.keys.escape = await focused();
        await page.keyboard.press("Enter");
        got.keys.enter = await focused();
        await page.keyboard.press("Enter");
        got.keys.enterAgain = await focused();
        await page.locator("#role").click();
        got.keys.click = await focused();
        await page.locator("#role").click();
        got.keys.clickAgain = await focused();
        // pressed open, the focus gone on: Escape hides it still
        await page.locator("#role").click();
        await page.keyboard.press("Tab");
        got.keys.away = await focused();
        await page.keyboard.press("Escape");
        got.keys.awayEscape = await focused();
      }
      result[name] = got;
      await page.context().close();
    }
  }
};

// A Czech GM on a 1366×768 laptop, a long evening's log (the page longer than the
// screen), offline (the bar's longest): scrolled to the page's end, where the bar, who
// the viewer is, the log's panel and its latest line are drawn, what a click on that
// line hits; then the roll form's formula focused by Tab from the bar, and the log
// scrolled by its keys from the page's end.
cases.held = async (browser, result) => {
  const page = await joinedPage(browser, "held", { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1,
    locale: "cs-CZ" }, trouble, `${BASE}/tables/web`, TOKENS.web.gm);
  await page.locator("form.roll-form").waitFor();
  for (let i = 0; i < 16; i++) await roll(page, "2d6", `long evening ${i}`);
  await page.context().setOffline(true);
  await page.waitForSelector('body[data-status="offline"]');
  const where = () => page.evaluate(() => {
    const box = (node) => {
      const at = node.getBoundingClientRect();
      return { top: Math.round(at.top), bottom: Math.round(at.bottom), height: Math.round(at.height) };
    };
    const latest = document.querySelector("#log > li");
    const at = latest.getBoundingClientRect();
    const hit = document.elementFromPoint(at.left + 8, at.top + 4);
    const active = document.activeElement;
    const focus = box(active);
    const focusHit = document.elementFromPoint(active.getBoundingClientRect().left + 4, focus.top + 4);
    return { bar: box(document.querySelector("header.topbar")), tools: box(document.querySelector(".bar-tools")),
      status: document.getElementById("status").textContent, panel: box(document.getElementById("log-panel")),
      latest: { ...box(latest), hit: latest.contains(hit) },
      focus: { ...focus, what: active.getAttribute("name") ?? active.id, hit: active.contains(focusHit) },
      scrolled: Math.round(window.scrollY), max: document.documentElement.scrollHeight - window.innerHeight,
      logTop: Math.round(document.getElementById("log").scrollTop), screen: window.innerHeight };
  });
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  result.end = await where();
  result.formula = (await tabTo(page, 'form.roll-form input[name="formula"]')) && await where();
  result.formulaBack = (await tabTo(page, "#log", true)) && await where();
  // from the page's end, the log's keys scroll the log, not the window
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await page.focus("#log");
  const before = await where();
  await page.keyboard.press("End");
  await page.waitForFunction(() => document.getElementById("log").scrollTop > 0);
  result.keys = { before, after: await where() };
  await page.context().setOffline(false);
  await page.context().close();
};

/** Every stop of the focus, Tab alone from the table's heading to the page's end, then
 * Shift+Tab alone back to the heading (what lies above comes into view from above):
 * each where it rests — under the held bar or the viewer's tools held beside it (a
 * laptop's), past the screen's bottom, or under something else. */
async function walkBoth(page) {
  const where = () => page.evaluate(() => {
    const active = document.activeElement;
    if (!active || active === document.body) return null;
    const held = [document.querySelector("header.topbar"), document.querySelector(".bar-tools")]
      .filter((node) => ["sticky", "fixed"].includes(getComputedStyle(node).position))
      .map((node) => node.getBoundingClientRect());
    const at = active.getBoundingClientRect();
    const inBar = Boolean(active.closest("header.topbar, .bar-tools"));
    // drawn over by a held box: they meet on screen
    const under = !inBar && held.some((box) => at.top < box.bottom - 1 && at.bottom > box.top
      && at.left < box.right && at.right > box.left);
    const x = Math.min(Math.max(at.left + 4, 0), window.innerWidth - 1);
    const y = Math.min(Math.max(at.top + Math.min(8, at.height / 2), 0), window.innerHeight - 1);
    const hit = document.elementFromPoint(x, y);
    return { what: `${active.tagName}.${active.getAttribute("name") ?? active.id ?? ""}`,
      top: Math.round(at.top), under, below: at.top >= window.innerHeight,
      covered: !(hit === active || active.contains(hit) || hit?.closest("label")?.control === active) };
  });
  const stops = [];
  await page.focus("#title");
  for (const key of ["Tab", "Shift+Tab"]) {
    for (let i = 0; i < 400; i++) {
      await page.keyboard.press(key);
      const stop = await where();
      if (!stop || stop.what === "H1.title") break; // out of the page, or back at the heading
      stops.push({ ...stop, key });
    }
  }
  return stops;
}

// A German and a Russian GM with requests waiting, and a player, on laptops — 1366×768,
// 1280×720, a window 500 px high — and at 200 % zoom (a 1366×768 screen's 683×384);
// and at a table of a long name (RB_LONG: its table, GM's and player's tokens; players'
// requests wait too) at 1280×720 and 1366×500: every stop of the keyboard forward and
// back rests in view, under nothing held; the bar's height; the jump to the waiting
// requests on screen at the page's top and end, and pressed it brings Approve into view
// under the bar.
cases.laptops = async (browser, result) => {
  const long = JSON.parse(process.env.RB_LONG);
  const approval = { table: "approval", ...TOKENS.approval };
  let asked = 0;
  for (const [size, viewport, at] of [
    ["1366", { width: 1366, height: 768 }, approval], ["1280", { width: 1280, height: 720 }, approval],
    ["500", { width: 1366, height: 500 }, approval], ["zoom", { width: 683, height: 384 }, approval],
    ["long1280", { width: 1280, height: 720 }, long], ["long500", { width: 1366, height: 500 }, long]]) {
    for (const locale of ["de-DE", "ru-RU"]) {
      for (const role of ["gm", "player"]) {
        const name = `${size}-${locale.slice(0, 2)}-${role}`;
        step(`laptops ${name}`);
        const page = await joinedPage(browser, name, { viewport, deviceScaleFactor: 1, locale }, trouble,
          `${BASE}/tables/${at.table}`, at[role]);
        await page.locator("form.roll-form").waitFor();
        if (role === "gm") {
          for (let i = 0; i < 2; i++) {
            await gmRequest(page, at.table, at.player,
              { type: "roll", id: `held-ask-${asked++}`, formula: "2d6", label: `held ask ${i}` });
          }
          await page.waitForFunction(() => document.querySelectorAll("#pending li.pending-item").length >= 2);
        }
        const stops = await walkBoth(page);
        const got = { count: stops.length, back: stops.filter((s) => s.key === "Shift+Tab").length,
          wrong: stops.filter((s) => s.under || s.below || s.covered),
          bar: await page.evaluate(() => Math.round(document.querySelector("header.topbar")
            .getBoundingClientRect().height)) };
        if (role === "gm") {
          const jump = () => page.evaluate(() => {
            const at = document.getElementById("log-waiting").getBoundingClientRect();
            return { top: Math.round(at.top), bottom: Math.round(at.bottom), screen: window.innerHeight };
          });
          await page.evaluate(() => window.scrollTo(0, 0));
          got.jumpTop = await jump();
          await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
          got.jumpEnd = await jump();
          await page.evaluate(() => window.scrollTo(0, 0));
          await page.locator("#log-waiting").click();
          await page.waitForFunction(() => document.activeElement?.name === "approve");
          got.approve = await page.evaluate(() => {
            const at = document.activeElement.getBoundingClientRect();
            const bar = document.querySelector("header.topbar").getBoundingClientRect();
            const hit = document.elementFromPoint(at.left + 4, at.top + Math.min(8, at.height / 2));
            return { top: Math.round(at.top), barBottom: Math.round(bar.bottom), screen: window.innerHeight,
              hit: document.activeElement.contains(hit) };
          });
        }
        result[name] = got;
        await page.context().close();
      }
    }
  }
};

await runCase(cases, trouble);
