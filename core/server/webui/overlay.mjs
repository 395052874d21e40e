// The stream overlay (/tables/ID/overlay#token=…): a transparent page for a
// streaming program's browser source — the latest roll or resolution large,
// with its dice and narration (from before it opened too), and every actor's
// tracks small. No controls;
// meant for an observer token, so it shows what any observer may see.

import { actorCards } from "./controls.mjs";
import { fetchHistory } from "./history.mjs";
import { byLabel, diceGroups, el, eventSummary, isolated, renderDiceGroup } from "./render.mjs";
import { Session, browserLocale, socketUrl, tableFromPath, takeToken } from "./session.mjs";
import { chosenLanguage, i18n, localizePage, pageLanguage, useLanguage } from "./texts.mjs";

const $ = (id) => document.getElementById(id);
const tableId = tableFromPath(location.pathname);
const token = takeToken();
const locale = chosenLanguage() ?? browserLocale(); // as the table's page: the viewer's choice first
let session = null;
await useLanguage(pageLanguage(locale));
localizePage(document);

/** The seq of the roll or resolution shown (a later one replaces it, never an earlier). */
let shownSeq = 0;

function showLatest(event) {
  if (event.kind !== "roll" && event.kind !== "resolution") return;
  if (event.seq <= shownSeq) return;
  shownSeq = event.seq;
  const box = el("article", `shown kind-${event.kind}`);
  box.dataset.seq = String(event.seq);
  const data = event.data ?? {};
  if (event.kind === "roll") {
    const who = data.actor ? session.nameOf(data.actor) : byLabel(event.by);
    // a right-to-left label cannot reorder the name beside it (as in the log's line)
    box.append(el("p", "who", [who, data.label].filter(Boolean).map(isolated).join(" — ")));
    box.append(el("p", "total", data.total));
  }
  const line = event.kind === "roll" ? data.text : eventSummary(event, (id) => session.nameOf(id), session.words());
  if (line) box.append(el("p", "narration", line));
  for (const group of diceGroups(data)) box.append(renderDiceGroup(group));
  $("latest").replaceChildren(box);
}

if (!tableId || !token) {
  $("message").textContent = i18n.localize("ROLLBRIDGE.Web.Message.OverlayToken");
} else {
  session = new Session({
    table: tableId,
    token,
    url: socketUrl(location, tableId),
    locale,
    listeners: {
      onSnapshot: async (welcome) => {
        document.documentElement.lang = welcome.locale ?? "en";
        $("title").textContent = welcome.table?.name ?? tableId; // the heading names the table
        // the latest roll before the overlay opened, from the session log
        const events = await fetchHistory({ table: tableId, token, locale: welcome.locale, upTo: welcome.seq, keep: 50 });
        // the names its events' views give: an actor removed since, named by a later
        // update, was shown as *an actor*'s (Session#nameOf knows the table's actors);
        // the latest first, so the nearest view after the roll names it (the name it
        // had then, not a later rename's)
        for (const event of [...events].reverse()) session.noteNames(event.actors);
        const last = events.filter((e) => e.kind === "roll" || e.kind === "resolution").pop();
        if (last) showLatest(last);
      },
      onTable: () => $("actors").replaceChildren(...actorCards(session, { small: true })),
      onEvent: showLatest,
      onCursor: (cursor) => {
        document.body.dataset.seq = String(cursor.seq);
      },
      onStatus: (status, detail) => {
        document.body.dataset.status = status;
        $("message").textContent = status === "refused" ? (detail?.message || i18n.localize("ROLLBRIDGE.Connection.refused")) : "";
      },
    },
  });
  session.start();
}
