// axe-core run on a page of the web view, for the browser scripts that check what it
// finds (axe.mjs, tablet.mjs). axe-core comes from tests/foundry/node_modules (npm ci
// --prefix tests/foundry), as playwright-core does. It is put in the page through the
// DevTools protocol (Playwright's evaluate), which the page's Content-Security-Policy
// does not govern: the page itself keeps its policy, Trusted Types too.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../foundry/package.json", import.meta.url));
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** A laptop's screen as the axe test names it. */
export const LAPTOP = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 };
/** axe's rules run: WCAG 2.0, 2.1 and 2.2 A and AA, axe's best practices, and its
 * experimental rules (axe-core is pinned, so they do not change under the test). */
export const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"];

/** Run axe on the whole page: each violation with its rule, impact and the nodes
 * it names (their selector, the start of their markup and axe's summary). */
export async function axeViolations(page) {
  await page.evaluate(AXE);
  return page.evaluate(async (tags) => {
    const results = await globalThis.axe.run(document, { resultTypes: ["violations"], runOnly: { type: "tag", values: tags } });
    return results.violations.map((rule) => ({
      id: rule.id, impact: rule.impact, help: rule.help,
      nodes: rule.nodes.map((node) => ({ target: node.target.join(" "), html: node.html.slice(0, 160),
        summary: node.failureSummary })),
    }));
  }, TAGS);
}
