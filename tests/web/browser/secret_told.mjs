// What a secret is to the web view (tests/web/test_web_secret_told.py): an action the
// ruleset always keeps secret (tests/plugins/listener.py's `listen`) on the GM's form
// and told to the player who asked it; another player's request waiting for the GM
// as a player hears it. RB_CASE names the case; prints one line `RESULT {json}` of
// what the pages showed; the Python test judges it.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKENS (JSON: table → role →
// token; never printed), RB_CHROMIUM, RB_CASE.

import process from "node:process";

import {
  connected, DESKTOP, caseScript, flush, gmRequest, joinedPage, listen, openPage, runCase, seqOf, SMALL_PHONE, told, waitSeq,
} from "./pages.mjs";

const { BASE, TOKENS, trouble, step } = caseScript("secret_told");

/** Waiting, bounded by `timeout` ms, until the page's own entry names event `seq`
 * (its request linked to the event); null past the bound, for the test to judge. */
function linked(page, seq, timeout) {
  return page.waitForFunction((s) => document.querySelector("#log li.kind-mine .kind")?.textContent
    .includes(`#${s}`), seq, { timeout }).catch(() => null);
}

/** Whether the page's own entry `mine` still waits, and what its kind says. */
async function mineNow(mine) {
  return { waits: await mine.evaluate((li) => li.classList.contains("mine-waits")),
    kind: await mine.locator(".kind").textContent() };
}

/** The secret box of the GM's form of `action`: checked, disabled, and the text that
 * describes it to a screen reader (aria-describedby), as shown. */
async function secretBox(page, action) {
  await page.selectOption("#action-select", action);
  const form = page.locator(`form.action-form[data-action="${action}"]`);
  await form.waitFor();
  // reached by Tab from the form's first field (a screen reader's user finds the box
  // and hears why it is checked), then pressed: Space and a click
  await form.locator("select, input").first().focus();
  let reached = false;
  for (let i = 0; i < 20 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement?.matches("input.secret-box") === true);
  }
  const always = await form.locator("input.secret-box").getAttribute("aria-disabled") === "true";
  if (always) {
    await page.keyboard.press("Space");
    await form.locator("input.secret-box").click({ force: true }); // aria-disabled: Playwright would wait
  }
  return form.locator("input.secret-box").evaluate((box, tabbed) => ({
    reached: tabbed,
    checked: box.checked,
    disabled: box.disabled || box.getAttribute("aria-disabled") === "true",
    label: box.labels[0]?.textContent ?? null,
    described: (box.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? "").join(" "),
    visible: (box.getAttribute("aria-describedby") ?? "").split(" ").filter(Boolean)
      .every((id) => document.getElementById(id)?.checkVisibility() === true),
  }), reached);
}

/** The GM's page (English, a desktop) with the `test` action's form chosen and its
 * *secret* box checked: the page and the form. */
async function secretChecked(browser) {
  const gm = await joinedPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble, `${BASE}/tables/secret`,
    TOKENS.secret.gm);
  await gm.selectOption("#action-select", "test");
  const form = gm.locator('form.action-form[data-action="test"]');
  await form.locator("input.secret-box").check();
  return { gm, form };
}

/** The `test` action's form on the GM's page: its secret box and the target chosen. */
async function testForm(page) {
  const form = page.locator('form.action-form[data-action="test"]');
  return {
    secret: await form.locator("input.secret-box").isChecked(),
    target: await form.locator('input[name="target"]:checked').evaluate((input) => input.value).catch(() => null),
  };
}

/** A page of the server's origin for the GM's requests to the table `asking` (gmRequest). */
async function askingGm(browser) {
  const gm = await openPage(browser, "gm", { ...DESKTOP, locale: "en-US" }, trouble);
  await gm.goto(`${BASE}/tables/asking`);
  return gm;
}

/** A Czech phone (tapped) at the table `asking` as `who` with the `listen` form shown:
 * the page, the form and the log's entries of the page's own requests. */
async function listening(browser, who = "player") {
  const page = await joinedPage(browser, who, { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, `${BASE}/tables/asking`,
    TOKENS.asking[who], { tap: true });
  await page.selectOption("#action-select", "listen");
  return { page, form: page.locator('form.action-form[data-action="listen"]'), mine: page.locator("#log li.kind-mine") };
}

/** `listen` asked `count` times from `form` on `page`, each shown in the log. */
async function askListen(page, form, count) {
  for (let i = 1; i <= count; i++) {
    await form.locator('button[type="submit"]').click();
    const shown = await page.waitForFunction((n) => document.querySelectorAll("#log li.kind-mine").length === n, i,
      { timeout: 60_000 }).then(() => true, () => false);
    if (!shown) throw new Error(`ask ${i} not shown: ${await form.locator(".form-status").textContent()}`);
  }
}

/** A table whose GM approves players' requests first, at a table rate of 1 a second
 * (bursts of 2): a Czech player's `listen` waits; the GM approves it from a socket
 * that, in the same breath, keeps taking the table's rate (`state` as fast as the
 * replies come; `window.rbFlood.stop` ends it). The pages, the player's form and log
 * entry, and the id of the player's `listen`; `result` gets the pending id, the
 * approval's reply and its seq. */
async function floodedApproval(browser, result) {
  const gm = await askingGm(browser);
  const { page: player, form, mine } = await listening(browser);
  await askListen(player, form, 1);
  await flush(player);
  result.pending = await mine.getAttribute("data-pending");
  const id = player.gate.sent.map((f) => JSON.parse(f)).find((m) => m.action === "listen").id;
  step("the GM approves it, and keeps the table's rate taken");
  result.flood = await gm.evaluate(({ token, pending }) => new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${location.host}/tables/asking`);
    // `state` after `state`, each as its reply comes, while `running`
    const flood = { taken: 0, refused: 0, running: false, stop: false };
    window.rbFlood = flood;
    let n = 0;
    const state = () => socket.send(JSON.stringify({ type: "state", id: `flood-${n++}` }));
    const approve = () => {
      socket.send(JSON.stringify({ type: "approve", id: `ok-${n}`, request: pending }));
      flood.running = true;
      state(); // in the same breath: the table's rate is taken before the page asks
    };
    socket.onopen = () => socket.send(JSON.stringify({ type: "hello", id: "gm-hello", table: "asking", token }));
    socket.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      if (frame.id === "gm-hello") approve();
      else if (String(frame.id).startsWith("ok-")) {
        if (frame.type === "error" && frame.code === "rate_limited") {
          // the scene, not the case: the approval waits for the table's rate to refill
          flood.running = false;
          setTimeout(approve, Math.ceil(frame.details.retry_after * 1000) + 1000);
        } else resolve({ status: frame.status, seq: frame.seq ?? frame.event?.seq ?? null });
      } else if (String(frame.id).startsWith("flood-")) {
        if (frame.type === "error") flood.refused += 1;
        else flood.taken += 1;
        if (String(frame.id) !== `flood-${n - 1}`) return;
        if (flood.stop) socket.close();
        else if (flood.running) state();
      }
    };
    socket.onerror = () => reject(new Error("the GM's socket failed"));
  }), { token: TOKENS.asking.gm, pending: result.pending });
  result.seq = result.flood.seq;
  return { gm, player, form, mine, id };
}

const cases = {
  /** The GM's form of `listen` (always secret) and of `test` in four languages; a
   * player's `listen`, and what a screen reader heard of it. */
  async always(browser, result) {
    const url = `${BASE}/tables/secret`;
    result.gm = {};
    for (const lang of ["en", "cs", "de", "ru"]) {
      step(`the GM's forms in ${lang}`);
      const gm = await joinedPage(browser, `gm-${lang}`, { ...DESKTOP, locale: lang }, trouble, url, TOKENS.secret.gm);
      result.gm[lang] = { listen: await secretBox(gm, "listen"), test: await secretBox(gm, "test") };
      await gm.context().close();
    }
    step("the player asks listen");
    const player = await joinedPage(browser, "player", { ...SMALL_PHONE, locale: "en-US" }, trouble, url,
      TOKENS.secret.player, { tap: true });
    await listen(player);
    await player.selectOption("#action-select", "listen");
    const form = player.locator('form.action-form[data-action="listen"]');
    await form.locator('button[type="submit"]').click();
    await form.locator(".form-status:not(:empty)").waitFor();
    await flush(player);
    result.player = {
      told: await told(player),
      message: await player.textContent("#message"),
      status: await form.locator(".form-status").textContent(),
      kinds: await player.$$eval("#log li[data-seq]", (items) => items.map((li) => li.className)),
    };
  },

  /** The GM checks *secret* on the `test` action's form, then an actor is added (the
   * forms are built anew): whether the box is still checked. */
  async kept(browser, result) {
    const { gm, form } = await secretChecked(browser);
    result.before = await form.locator("input.secret-box").isChecked();
    const old = await form.elementHandle();
    result.added = await gmRequest(gm, "secret", TOKENS.secret.gm, { type: "actor.create", id: "add-rat",
      actor: { id: "rat", name: "Rat", sheet: { skill: 3 }, controllers: [] } });
    await form.locator('input[name="target"][value="rat"]').waitFor();
    result.rebuilt = await old.evaluate((node) => !node.isConnected);
    result.after = await form.locator("input.secret-box").isChecked();
  },

  /** The GM checks *secret* on the `test` action's form and on the roll form, then
   * chooses German (the page loaded anew, what was typed kept): whether the boxes are
   * still checked, the action still `test`. */
  async language(browser, result) {
    const { gm, form } = await secretChecked(browser);
    await gm.locator('form.roll-form input[name="secret"]').check();
    step("German chosen");
    await Promise.all([gm.waitForEvent("load"), gm.selectOption("#language", "de")]);
    await gm.locator('html[lang="de"] form.action-form[data-action="test"] input.secret-box').waitFor();
    await gm.locator("#log li[data-seq]").first().waitFor();
    result.action = await gm.locator("#action-select").inputValue();
    result.after = await form.locator("input.secret-box").isChecked();
    result.roll = await gm.locator('form.roll-form input[name="secret"]').isChecked();
  },

  /** The GM chooses the target Bandit and checks *secret* on the `test` action's
   * form, chooses `listen`, then `test` again: what the form holds. */
  async switched(browser, result) {
    const { gm, form } = await secretChecked(browser);
    await form.locator('input[name="target"][value="bandit"]').check();
    await gm.selectOption("#action-select", "listen");
    await gm.locator('form.action-form[data-action="listen"]').waitFor();
    await gm.selectOption("#action-select", "test");
    await form.waitFor();
    result.back = await testForm(gm);
  },

  /** The GM checks *secret* on the roll form and on the `test` action's form (the
   * target Bandit chosen), and reloads the page (the browser's own reload): the boxes
   * as they come back; then again with `listen` shown when the page reloads, `test`
   * chosen after it. */
  async reloaded(browser, result) {
    const { gm, form } = await secretChecked(browser);
    await form.locator('input[name="target"][value="bandit"]').check();
    await gm.locator('form.roll-form input[name="secret"]').check();
    step("reloaded");
    await gm.reload();
    await form.waitFor();
    await gm.locator("#log li[data-seq]").first().waitFor();
    result.shown = { ...await testForm(gm), roll: await gm.locator('form.roll-form input[name="secret"]').isChecked() };
    step("listen chosen, reloaded, test chosen again");
    await gm.selectOption("#action-select", "listen");
    await gm.locator('form.action-form[data-action="listen"]').waitFor();
    await gm.reload();
    await gm.locator('form.action-form[data-action="listen"]').waitFor();
    await gm.locator("#log li[data-seq]").first().waitFor();
    await gm.selectOption("#action-select", "test");
    await form.waitFor();
    result.other = await testForm(gm);
  },

  /** A table whose GM approves players' requests first: a Czech player asks `listen`
   * (always secret), the GM approves it; the player's log (its request's entry and
   * its event's placeholder), then after a reload. */
  async mine(browser, result) {
    const gm = await askingGm(browser);
    const { page: player, form, mine } = await listening(browser);
    await askListen(player, form, 1);
    result.pending = await mine.getAttribute("data-pending");
    step("the GM approves it");
    const approved = await gmRequest(gm, "asking", TOKENS.asking.gm, { type: "approve", id: "ok-listen",
      request: result.pending });
    result.seq = approved.seq ?? approved.event?.seq;
    const entries = async () => ({
      mine: await mine.locator(".kind").textContent(),
      hidden: await player.locator(`#log li[data-seq="${result.seq}"] .kind`).textContent(),
      status: await form.locator(".form-status").textContent(),
    });
    await linked(player, result.seq, 10_000);
    await flush(player);
    result.live = await entries();
    step("the player's page reloaded");
    await player.reload();
    await player.locator(`#log li[data-seq="${result.seq}"]`).waitFor();
    await mine.waitFor();
    result.reloaded = await entries();
  },

  /** A busy approval table: a Czech player's page with RB_ASKS `listen`s waiting for
   * the GM, while the GM rolls RB_ROLLS secret rolls as fast as the replies come (one
   * socket, as Foundry or `rollbridge connect` would): each reaches the player's page
   * as a `hidden` placeholder. What the page sent again (`repeat`), what the server
   * refused of the page's and of the GM's, and that the GM's approval of one of them is
   * still linked to its event afterwards. */
  async busy(browser, result) {
    const gm = await askingGm(browser);
    const { page: player, form, mine } = await listening(browser);
    await askListen(player, form, Number(process.env.RB_ASKS ?? 3));
    await flush(player);
    const pendings = await mine.evaluateAll((items) => items.map((li) => li.dataset.pending));
    const sentBefore = player.gate.sent.length;
    const framesBefore = player.gate.frames.length;
    step("the GM rolls in secret, fast");
    const rolls = Number(process.env.RB_ROLLS ?? 30);
    result.gm = await gm.evaluate(({ token, rolls }) => new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://${location.host}/tables/asking`);
      const refused = [];
      let done = 0;
      const next = () => socket.send(JSON.stringify({ type: "roll", id: `burst-${done}`, formula: "1d6", secret: true }));
      socket.onopen = () => socket.send(JSON.stringify({ type: "hello", id: "gm-hello", table: "asking", token }));
      socket.onmessage = (message) => {
        const frame = JSON.parse(message.data);
        if (frame.id === "gm-hello") next();
        else if (typeof frame.id === "string" && frame.id.startsWith("burst-")) {
          if (frame.type === "error") refused.push(frame.code);
          done += 1;
          if (done < rolls) next();
          else {
            socket.close();
            resolve({ refused, rolled: done - refused.length });
          }
        }
      };
      socket.onerror = () => reject(new Error("the GM's socket failed"));
    }), { token: TOKENS.asking.gm, rolls });
    // each request sent again (paced: two at once, then one each half second, and the
    // credit may have gone on the asking just before), then what the page did, done
    const resent = () => new Set(player.gate.sent.slice(sentBefore).map((f) => JSON.parse(f))
      .filter((m) => m.repeat === true).map((m) => m.id)).size;
    await player.gate.until(() => resent() >= pendings.length);
    await flush(player);
    await flush(player);
    const sent = player.gate.sent.slice(sentBefore).map((f) => JSON.parse(f));
    const frames = player.gate.frames.slice(framesBefore).map((f) => JSON.parse(f));
    result.repeats = sent.filter((m) => m.repeat === true).length;
    result.refused = frames.filter((m) => m.type === "error").map((m) => m.code);
    result.waiting = await mine.evaluateAll((items) => items.map((li) => li.classList.contains("mine-waits")));
    result.status = await form.locator(".form-status").textContent();
    step("the GM approves the first");
    const approved = await gmRequest(gm, "asking", TOKENS.asking.gm, { type: "approve", id: "ok-first",
      request: pendings[0] });
    result.seq = approved.seq ?? approved.event?.seq;
    result.pending = pendings[0];
    await linked(player, result.seq, 10_000);
    await flush(player);
    result.linked = await mine.first().locator(".kind").textContent();
  },

  /** A crowded approval table at a low table rate (test_web_secret_told.py): two
   * players' pages (Czech, tapped) with 8 `listen`s waiting each; the GM rolls in
   * secret, and again as soon as the pages have begun to send their requests again,
   * then approves the player's first. What each page sent again (`repeat`) and was
   * refused from the first roll on, how the GM's rolls were answered, and the
   * player's first request's entry once linked. */
  async crowded(browser, result) {
    const gm = await askingGm(browser);
    const pages = {};
    result.asked = [];
    for (const who of ["player", "bob"]) {
      step(`${who} asks 8 times`);
      const { page, form, mine } = await listening(browser, who);
      pages[who] = page;
      await askListen(page, form, 8);
      result.asked.push(await mine.count());
    }
    // the table's rate refilled (5 a second, bursts of 10) and the pages' resends of
    // the asking done: a wait that sets the scene, nothing measured by it
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const from = Object.fromEntries(Object.entries(pages).map(([who, page]) => [who, page.gate.sent.length]));
    const framesFrom = Object.fromEntries(Object.entries(pages).map(([who, page]) => [who, page.gate.frames.length]));
    const repeats = (who) => pages[who].gate.sent.slice(from[who]).map((f) => JSON.parse(f))
      .filter((m) => m.repeat === true);
    step("the GM rolls in secret");
    const code = (reply) => (reply.type === "error" ? reply.code : "ok");
    result.gm = { first: code(await gmRequest(gm, "asking", TOKENS.asking.gm, { type: "roll", id: "crowd-1",
      formula: "1d6", secret: true })) };
    for (const who of Object.keys(pages)) await pages[who].gate.until(() => repeats(who).length >= 2);
    step("and again");
    result.gm.second = code(await gmRequest(gm, "asking", TOKENS.asking.gm, { type: "roll", id: "crowd-2",
      formula: "1d6", secret: true }));
    step("the GM approves the player's first");
    const first = await pages.player.locator("#log li.kind-mine").first().getAttribute("data-pending");
    const approved = await gmRequest(gm, "asking", TOKENS.asking.gm, { type: "approve", id: "ok-crowd",
      request: first });
    result.seq = approved.seq ?? approved.event?.seq;
    await linked(pages.player, result.seq, 30_000);
    // each page's requests all sent again (paced: the last some seconds after)
    for (const who of Object.keys(pages)) {
      await pages[who].gate.until(() => new Set(repeats(who).map((m) => m.id)).size >= 8);
      await flush(pages[who]);
    }
    result.linked = await pages.player.locator("#log li.kind-mine .kind").first().textContent();
    result.refused = Object.fromEntries(Object.entries(pages).map(([who, page]) => [who,
      page.gate.frames.slice(framesFrom[who]).map((f) => JSON.parse(f)).filter((m) => m.type === "error")
        .map((m) => m.code)]));
    result.repeats = Object.fromEntries(Object.keys(pages).map((who) => {
      const counts = {};
      for (const m of repeats(who)) counts[m.id] = (counts[m.id] ?? 0) + 1;
      return [who, counts];
    }));
  },

  /** A table whose GM approves players' requests first, at a table rate of 1 a second
   * (bursts of 2): a Czech player's `listen` waits; the GM approves it from a socket
   * that, in the same breath, keeps taking the table's rate (`state` as fast as the
   * replies come), so the page's resend of it (`repeat`) is refused `rate_limited`, and
   * again at each of the connection's five retries. What the page's entry says then;
   * the socket stopped, whether the page, asked nothing more, links the approval to
   * its event. */
  async refused(browser, result) {
    const { gm, player, form, mine, id } = await floodedApproval(browser, result);
    const refusals = () => player.gate.frames.map((f) => JSON.parse(f))
      .filter((m) => m.id === id && m.type === "error" && m.code === "rate_limited").length;
    // the page's resend and its five retries, each refused
    await player.gate.until(() => refusals() >= 6, 60_000);
    result.refusals = refusals();
    await flush(player); // what the page did with the last refusal, done
    result.during = {
      waits: await mine.evaluate((li) => li.classList.contains("mine-waits")),
      kind: await mine.locator(".kind").textContent(),
      status: await form.locator(".form-status").textContent(),
    };
    step("the socket stops taking the table's rate");
    result.stopped = await gm.evaluate(() => {
      window.rbFlood.stop = true;
      return { taken: window.rbFlood.taken, refused: window.rbFlood.refused };
    });
    await linked(player, result.seq, 30_000);
    result.after = {
      ...(await mineNow(mine)),
      hidden: await player.locator(`#log li[data-seq="${result.seq}"] .kind`).textContent(),
    };
  },

  /** As `refused`, the table kept busy long (the socket stops only when the page has
   * been refused RB_BOUND times and sent nothing more after): how often the page sent
   * its resend again (each frame of it counts against the table's rate: the pages'
   * own resends kept a busy table busy), what its entry says then; the socket stopped,
   * the GM rolls in secret (a placeholder: the request is due again), and whether the
   * page then links the approval to its event. */
  async refusedLong(browser, result) {
    const bound = Number(process.env.RB_BOUND);
    const { gm, player, mine, id } = await floodedApproval(browser, result);
    const refusals = () => player.gate.frames.map((f) => JSON.parse(f))
      .filter((m) => m.id === id && m.type === "error" && m.code === "rate_limited").length;
    const resends = () => player.gate.sent.map((f) => JSON.parse(f)).filter((m) => m.id === id && m.repeat).length;
    await player.gate.until(() => refusals() >= bound, 180_000);
    await flush(player);
    // a bound for a frame that should not come (the page's next resend went at once)
    await player.gate.until(() => refusals() > bound || resends() > bound, 15_000);
    result.refusals = refusals();
    result.resends = resends();
    result.waits = await mine.evaluate((li) => li.classList.contains("mine-waits"));
    step("the socket stops; the GM rolls in secret");
    await gm.evaluate(() => {
      window.rbFlood.stop = true;
    });
    await gm.evaluate(({ token }) => new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://${location.host}/tables/asking`);
      socket.onopen = () => socket.send(JSON.stringify({ type: "hello", id: "gm-hello", table: "asking", token }));
      socket.onmessage = (message) => {
        const frame = JSON.parse(message.data);
        if (frame.id === "gm-hello") socket.send(JSON.stringify({ type: "roll", id: "late", formula: "1d6", secret: true }));
        else if (frame.id === "late" && frame.type === "error") {
          setTimeout(() => socket.send(JSON.stringify({ type: "roll", id: "late", formula: "1d6", secret: true })), 1500);
        } else if (frame.id === "late") resolve(socket.close());
      };
      socket.onerror = () => reject(new Error("the GM's socket failed"));
    }), { token: TOKENS.asking.gm });
    await linked(player, result.seq, 30_000);
    result.after = await mineNow(mine);
  },

  /** As `refused`, and the player's phone reloads while the table is kept busy: the
   * page loaded anew asks what became of its `listen` (`repeat`, as it joins) and is
   * refused `rate_limited` at each of the connection's five retries. What its entry
   * says then; the socket stopped, whether the page, asked nothing more, links the
   * approval to its event. */
  async refusedReload(browser, result) {
    const { gm, player, mine, id } = await floodedApproval(browser, result);
    const refusals = (from = 0) => player.gate.frames.slice(from).map((f) => JSON.parse(f))
      .filter((m) => m.id === id && m.type === "error" && m.code === "rate_limited").length;
    // the placeholder's resend refused: the GM's approval is made
    await player.gate.until(() => refusals() >= 1, 60_000);
    step("the phone reloads");
    const from = player.gate.frames.length;
    await player.reload();
    await connected(player);
    // the question as the page joins and its five retries, each refused
    await player.gate.until(() => refusals(from) >= 6, 60_000);
    await flush(player);
    result.refusals = refusals(from);
    result.during = { waits: await mine.evaluate((li) => li.classList.contains("mine-waits")) };
    step("the socket stops taking the table's rate");
    await gm.evaluate(() => {
      window.rbFlood.stop = true;
    });
    await linked(player, result.seq, 30_000);
    result.after = await mineNow(mine);
  },

  /** A Czech player's phone with RB_ASKS `listen`s waiting for the GM reloads: the page
   * asks what became of each as it joins (`repeat`). When the page sent each of those
   * frames, by the page's own clock (`performance.now()`, read where the page's
   * WebSocket sends), and that all were asked. */
  async joinPaced(browser, result) {
    const asks = Number(process.env.RB_ASKS);
    const { page: player, form, mine } = await listening(browser);
    await askListen(player, form, asks);
    await flush(player);
    await player.addInitScript(() => {
      const send = WebSocket.prototype.send;
      window.rbSentAt = [];
      WebSocket.prototype.send = function sendTimed(data) {
        window.rbSentAt.push([performance.now(), String(data)]);
        return send.call(this, data);
      };
    });
    step("the phone reloads");
    const from = player.gate.sent.length;
    await player.reload();
    await connected(player);
    const repeats = () => player.gate.sent.slice(from).map((f) => JSON.parse(f)).filter((m) => m.repeat === true);
    await player.gate.until(() => new Set(repeats().map((m) => m.id)).size >= asks, 60_000);
    await flush(player);
    result.asked = new Set(repeats().map((m) => m.id)).size;
    result.waiting = await mine.evaluateAll((items) => items.map((li) => li.classList.contains("mine-waits")));
    result.times = await player.evaluate(() => window.rbSentAt
      .filter(([, data]) => JSON.parse(data).repeat === true).map(([at]) => at));
  },

  /** A Czech player's phone with RB_ASKS `listen`s waiting for the GM reloads; while
   * the questions of that join still wait their turn (the page's half-second timers
   * are held, then let go a turn at a time: nothing here waits for a time), the line drops and the page joins again
   * from a snapshot (its hello's resume left out). What each request was asked, as
   * ids in the order sent, from the second join on: `again`. */
  async joinTwice(browser, result) {
    const asks = Number(process.env.RB_ASKS);
    const { page: player, form } = await listening(browser);
    await askListen(player, form, asks);
    await flush(player);
    await player.addInitScript(() => {
      // the pace's timer (resendSome's, RESEND_MS: known by its source, not a
      // reconnect's backoff of the same length) is held until `rbStep()`
      const later = window.setTimeout;
      const held = [];
      window.setTimeout = (fn, ms, ...args) => {
        if (ms === 500 && String(fn).includes("resendCredit")) {
          held.push(() => fn(...args));
          return -held.length;
        }
        return later(fn, ms, ...args);
      };
      // the timers held so far fire (those they set are held in turn)
      window.rbStep = () => {
        for (const fn of held.splice(0)) fn();
      };
      window.rbHeld = () => held.length;
      // a hello without its resume while `rbFresh`: the server answers with a snapshot
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function sendFresh(data) {
        const message = JSON.parse(String(data));
        if (window.rbFresh && message.type === "hello" && message.resume) {
          delete message.resume;
          return send.call(this, JSON.stringify(message));
        }
        return send.call(this, data);
      };
    });
    step("the phone reloads: two asked at once, the rest held");
    const from = player.gate.sent.length;
    await player.reload();
    await connected(player);
    const sent = (after) => player.gate.sent.slice(after).map((f) => JSON.parse(f));
    await player.gate.until(() => sent(from).filter((m) => m.repeat === true).length >= 2, 60_000);
    await player.waitForFunction(() => window.rbHeld() > 0, null, { timeout: 60_000 });
    await flush(player);
    result.first = sent(from).filter((m) => m.repeat === true).length;
    step("the line drops; the page joins again from a snapshot");
    await player.evaluate(() => { window.rbFresh = true; });
    const welcomes = player.gate.frames.filter((f) => JSON.parse(f).type === "welcome").length;
    const again = player.gate.sent.length;
    player.gate.drop();
    await player.gate.until(() => player.gate.frames.filter((f) => JSON.parse(f).type === "welcome").length > welcomes,
      60_000);
    await connected(player);
    await flush(player);
    // the pace's timer, a turn at a time, until the page sets none: nothing is left to ask
    for (let turn = 0; turn < 100 && await player.evaluate(() => window.rbHeld()) > 0; turn++) {
      await player.evaluate(() => window.rbStep());
      await flush(player);
    }
    result.held = await player.evaluate(() => window.rbHeld());
    result.again = sent(again).filter((m) => m.repeat === true).map((m) => m.id);
  },

  /** A table whose GM approves players' requests first: Bob's roll waits for the GM,
   * then the GM approves it. What Alice's phone (German) tells a screen reader and
   * shows in its log, while it waits and once approved; what a Czech observer who
   * joins after shows of it. */
  async another(browser, result) {
    const url = `${BASE}/tables/asking`;
    const gm = await askingGm(browser);
    const alice = await joinedPage(browser, "alice", { ...SMALL_PHONE, locale: "de-DE" }, trouble, url,
      TOKENS.asking.player, { tap: true });
    const bob = await joinedPage(browser, "bob", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.asking.bob, { tap: true });
    await listen(alice);
    step("Bob asks for a roll");
    const seq = (await seqOf(alice)) + 1;
    const form = bob.locator("form.roll-form");
    await form.locator('input[name="formula"]').fill("2d6");
    await form.locator('input[name="label"]').fill("Bobs Wurf");
    await form.locator('button[type="submit"]').click();
    await bob.locator("#log li.kind-mine").waitFor();
    await waitSeq(alice, seq);
    await flush(alice);
    result.waiting = {
      seq,
      told: await told(alice),
      entry: await alice.locator(`#log li[data-seq="${seq}"]`).textContent(),
      kind: await alice.locator(`#log li[data-seq="${seq}"] .kind`).textContent(),
    };
    step("the GM approves it");
    result.approve = await gmRequest(gm, "asking", TOKENS.asking.gm, { type: "approve", id: "ok-bob", request: `p${seq}` });
    const rolled = alice.locator('#log li.kind-roll:has-text("Bobs Wurf")');
    await rolled.waitFor();
    await flush(alice);
    result.approved = { told: await told(alice), seq: Number(await rolled.getAttribute("data-seq")),
      kind: await alice.locator(`#log li[data-seq="${seq}"] .kind`).textContent() };
    step("the GM rolls in secret");
    const secretSeq = (await seqOf(alice)) + 1;
    await gmRequest(gm, "asking", TOKENS.asking.gm, { type: "roll", id: "gm-secret", formula: "1d6", secret: true });
    await waitSeq(alice, secretSeq);
    await flush(alice);
    result.secret = { told: await told(alice),
      kind: await alice.locator(`#log li[data-seq="${secretSeq}"] .kind`).textContent() };
    step("an observer joins after it: the log from before");
    const observer = await joinedPage(browser, "observer", { ...SMALL_PHONE, locale: "cs-CZ" }, trouble, url,
      TOKENS.asking.observer);
    const entry = observer.locator(`#log li[data-seq="${seq}"] .kind`);
    await entry.waitFor();
    result.observer = { kind: await entry.textContent() };
  },
};

await runCase(cases, trouble);
