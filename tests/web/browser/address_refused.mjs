// The web view opened with a right token by a client whose address is past the
// server's wrong tokens (started by tests/web/test_web_address_rate.py): its hello
// is refused unchecked (`rate_limited`, scope `wrong_tokens`). Prints one line
// `RESULT {json}`: the page's status and message line once it shows why it waits,
// the sockets it opened while its clock then ran on by 2 s (the backoff alone
// would have tried twice more; the server's `retry_after` is a minute), and the
// page's trouble; a screenshot to RB_SHOT if given.
//
// Environment: RB_BASE (http://127.0.0.1:PORT), RB_TOKEN (a right token; never
// printed), RB_CHROMIUM, RB_ADDRESS (the client's address the proxy names), RB_SHOT.

import process from "node:process";

import { DESKTOP, launch, openPage } from "./pages.mjs";

const env = process.env;
const trouble = { errors: [], dialogs: [] };
const result = {};
const options = { ...DESKTOP, locale: "de-DE", extraHTTPHeaders: { "X-Forwarded-For": env.RB_ADDRESS } };

const browser = await launch(env.RB_CHROMIUM);
try {
  const page = await openPage(browser, "player", options, trouble);
  // the page's timers on a clock the test moves on (it runs as usual until then),
  // and every socket the page opens counted
  await page.clock.install();
  await page.addInitScript(() => {
    const Native = window.WebSocket;
    window.socketsOpened = 0;
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        window.socketsOpened += 1;
      }
    };
  });
  await page.goto(`${env.RB_BASE}/tables/web#token=${env.RB_TOKEN}`);
  await page.waitForFunction(() => document.getElementById("message").textContent !== "");
  result.status = await page.evaluate(() => document.body.dataset.status);
  result.message = await page.textContent("#message");
  result.kind = await page.evaluate(() => document.getElementById("message").dataset.kind);
  // 2 s of the page's time, every timer due in them fired: a retry would open a socket
  const opened = await page.evaluate(() => window.socketsOpened);
  await page.clock.runFor(2000);
  result.retried = (await page.evaluate(() => window.socketsOpened)) - opened;
  result.opened = opened;
  if (env.RB_SHOT) await page.screenshot({ path: env.RB_SHOT });
  await page.context().close();
} finally {
  result.trouble = trouble;
  await browser.close();
}
process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
