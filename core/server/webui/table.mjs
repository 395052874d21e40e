// The web view of one table (/tables/ID): join with a token (typed in, or from
// the #token=… fragment), then the table live — actors, encounter, the log of
// rolls and resolutions — and the forms this viewer's role may use.

import { CONNECTION_LABELS, ROLE_LABELS, labelOf } from "../client/i18n.mjs";
import { errorText, localeNotice } from "../client/protocol.mjs";
import { actorCards, adjustForm, encounterView, historyButtons, pendingList } from "./controls.mjs";
import { actionForm, rollForm } from "./forms.mjs";
import { fetchHistory } from "./history.mjs";
import { el, renderEvent } from "./render.mjs";
import { Session, browserLocale, socketUrl, tableFromPath, takeToken } from "./session.mjs";
import { StatsPanel } from "./statspanel.mjs";
import { i18n, localizePage, pageLanguage, useLanguage } from "./texts.mjs";

/** Log entries kept on the page (the oldest leave first). */
const MAX_ENTRIES = 500;

const $ = (id) => document.getElementById(id);
const tableId = tableFromPath(location.pathname);
const locale = browserLocale();
// the page's own words in the language its hello asks the server's texts in
await useLanguage(pageLanguage(locale));
localizePage(document);
let session = null;
/** What the forms were built from: they are rebuilt only when it changes. */
let formsKey = null;

function say(text, kind = "info") {
  const line = $("message");
  line.textContent = text;
  line.dataset.kind = kind;
}

function send(message) {
  return session.request(message).then(
    (reply) => {
      if (reply.status === "pending") say(i18n.format("ROLLBRIDGE.Web.Message.Pending", { pending: reply.pending }));
      else if (reply.status === "secret") say(i18n.localize("ROLLBRIDGE.Web.Message.Secret"));
      else if (reply.status === "rejected") say(i18n.localize("ROLLBRIDGE.Web.Message.Rejected"));
      else say("");
      return reply;
    },
    (error) => {
      say(errorText(error, i18n), "error");
    },
  );
}

const stats = new StatsPanel({
  form: $("stats-form"),
  scope: $("stats-scope"),
  box: $("stats"),
  request: (message) => session.request(message),
  onError: (text) => say(text, "error"),
});

function drawTable() {
  stats.refresh(Boolean(session.table.encounter));
  $("actors").replaceChildren(...actorCards(session));
  $("encounter").replaceChildren(encounterView(session, send));
  if (session.role === "gm") $("pending").replaceChildren(pendingList(session, send));
  const key = JSON.stringify([session.role, [...session.actors.values()].map((a) => [a.id, a.name, a.controllers,
    (a.common?.tracks ?? []).map((t) => t.key)])]);
  if (key !== formsKey) {
    formsKey = key;
    buildForms();
  }
}

function buildForms() {
  const acting = session.role === "gm" || session.role === "player";
  $("act-panel").hidden = !acting;
  $("gm-panel").hidden = session.role !== "gm";
  if (!acting) return;
  $("roll").replaceChildren(rollForm(session, send));
  const actions = Object.entries(session.ruleset?.actions ?? {})
    .filter(([, spec]) => session.role === "gm" || !spec.gm_only);
  const chooser = $("action-select");
  const chosen = chooser.value;
  chooser.replaceChildren(...actions.map(([name]) => new Option(name, name)));
  if (actions.some(([name]) => name === chosen)) chooser.value = chosen;
  const showAction = () => {
    const spec = session.ruleset?.actions?.[chooser.value];
    $("action").replaceChildren(spec ? actionForm(session, chooser.value, spec, send) : el("p", "empty", i18n.localize("ROLLBRIDGE.Web.Message.NoActions")));
  };
  chooser.onchange = showAction;
  showAction();
  if (session.role === "gm") {
    $("history").replaceChildren(historyButtons(send));
    $("adjust").replaceChildren(adjustForm(session, send));
  }
}

/** The seqs the log shows: an event is shown once, whether it came live or from history. */
const shown = new Set();

/** Put a log entry in its place (newest first: a live event goes on top, an event
 * from history below the newer ones). */
function addEntry(node) {
  const log = $("log");
  const seq = Number(node.dataset.seq);
  if (node.dataset.seq === undefined) {
    log.prepend(node);
  } else {
    if (shown.has(seq)) return;
    shown.add(seq);
    const later = [...log.children].find((child) => child.dataset.seq !== undefined && Number(child.dataset.seq) < seq);
    log.insertBefore(node, later ?? null);
  }
  while (log.childElementCount > MAX_ENTRIES) log.lastElementChild.remove();
}

/** The log from before this page joined (the session log export). */
async function addHistory(token, welcome) {
  const events = await fetchHistory({ table: tableId, token, locale: welcome.locale, upTo: welcome.seq });
  for (const event of events) {
    stats.note(event);
    addEntry(renderEvent(event, (id) => session.nameOf(id), { lang: locale }));
  }
  document.body.dataset.history = String(events.length);
}

function joined(token, welcome, { first }) {
  $("join").hidden = true;
  $("table").hidden = false;
  const table = welcome.table ?? {};
  $("title").textContent = `${table.name ?? tableId} · ${table.ruleset ?? ""}`;
  document.title = `${table.name ?? tableId} — rollbridge`;
  $("role").textContent = `${labelOf(i18n, ROLE_LABELS, welcome.role)} (${welcome.name})`;
  // the server's texts on the page are in the language it answered in
  $("table").lang = welcome.locale ?? "en";
  if (!first) {
    addEntry(el("li", "entry entry-gap", i18n.localize("ROLLBRIDGE.Web.Message.Gap")));
  }
  formsKey = null;
  if (first) addHistory(token, welcome);
  const notice = localeNotice(welcome, locale);
  if (notice) say(notice.message);
}

function join(token) {
  if (!tableId) {
    say(i18n.localize("ROLLBRIDGE.Web.Message.NoTable"), "error");
    return;
  }
  $("log").replaceChildren();
  stats.reset();
  shown.clear();
  session = new Session({
    table: tableId,
    token,
    url: socketUrl(location, tableId),
    locale,
    listeners: {
      onSnapshot: (welcome, how) => joined(token, welcome, how),
      onTable: drawTable,
      onEvent: (event) => {
        stats.note(event);
        addEntry(renderEvent(event, (id) => session.nameOf(id), { lang: locale }));
      },
      onCursor: (cursor) => {
        document.body.dataset.seq = String(cursor.seq);
      },
      onStatus: (status, detail) => {
        document.body.dataset.status = status;
        $("status").textContent = labelOf(i18n, CONNECTION_LABELS, status);
        if (status === "refused") {
          say(detail?.message || i18n.localize("ROLLBRIDGE.Connection.refused"), "error");
          $("join").hidden = false;
          $("table").hidden = true;
        }
      },
    },
  });
  session.start();
}

$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("token");
  const token = input.value.trim();
  input.value = "";
  if (!token) return;
  if (session) session.stop();
  join(token);
});

const fromFragment = takeToken();
if (fromFragment) join(fromFragment);
else $("join").hidden = false;
