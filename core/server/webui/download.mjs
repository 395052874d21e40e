// The table's log as a file, for the viewer to check at home: the session log
// export (GET /tables/ID/export?format=jsonl, docs/protocol.md "Session log over
// HTTP") with the token in the Authorization header — never in an address, so a
// plain link cannot fetch it — saved through a Blob the browser downloads.
// `rollbridge verify FILE` checks it: every die against its revealed seed, every
// resolution resolved again (docs/dice.md, "Verifiable dice").

/** The file name the server gives the export (its Content-Disposition), else ID.jsonl. */
export function logFileName(table, disposition) {
  const named = /filename="([^"\\/]+)"/.exec(disposition ?? "");
  return named ? named[1] : `${String(table).replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`;
}

/** The whole log as this token's audience was sent it — or, with `since`, its events
 * after that seq (the export's `welcome` line first, the table as it stood then, so
 * the part verifies as well: docs/dice.md) — `{ blob, name }`; an Error with the
 * server's message (or the network's) when it is refused, with the answer's
 * `status` and `code`. */
export async function fetchLog({ table, token, locale, since = 0, fetchFn = globalThis.fetch }) {
  const query = new URLSearchParams({ format: "jsonl" });
  if (since > 0) query.set("since", String(since));
  if (locale) query.set("locale", locale);
  const answer = await fetchFn(`/tables/${encodeURIComponent(table)}/export?${query}`, {
    headers: { Authorization: `Bearer ${token}` },
    cache: "no-store",
    credentials: "omit",
    referrerPolicy: "no-referrer",
  });
  if (!answer.ok) {
    let message = `HTTP ${answer.status}`;
    let code = "";
    try {
      const refusal = await answer.json();
      message = refusal?.message || message;
      code = typeof refusal?.code === "string" ? refusal.code : "";
    } catch {
      // not the server's JSON error: its status says enough
    }
    throw Object.assign(new Error(message), { status: answer.status, code });
  }
  return { blob: await answer.blob(), name: logFileName(table, answer.headers.get("Content-Disposition")) };
}

/** How to check the file `name`: its dice and every action at a table with
 * verifiable dice; every action only at one without (its dice were never committed
 * to, so no reveal will come and `rollbridge verify` finds none to check). */
export function logHint(i18n, name, verifiable) {
  return i18n.format(verifiable ? "ROLLBRIDGE.Web.Log.Verify" : "ROLLBRIDGE.Web.Log.VerifyActions", { file: name });
}

/** Say again how to check the file when the table's setting `verifiable` changed
 * (a GM turns it on mid-session); a line that has not changed is left as it is, so a
 * refused download's reason stays until the next press. */
export function showLogHint(box, i18n, verifiable) {
  const now = verifiable ? "on" : "off";
  if (box.dataset.verifiable === now || box.dataset.file === undefined) return; // not shown yet: no file named
  box.dataset.verifiable = now;
  box.querySelector("output").textContent = logHint(i18n, box.dataset.file, verifiable);
}

/** Whether a refused download was refused for its size (413: the export would be
 * larger than the server sends at once, 32 MiB). */
const tooLarge = (error) => error?.status === 413;

/** Save `blob` as the file `name` (the browser's download). */
function save(blob, name) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

/**
 * The latest part of the log that the server sends at once: its events after
 * `since`, and while that is too large (413) after half as many; `{ blob, name,
 * since }`, or the last refusal.
 * @param {object} how fetchLog's `table`, `token`, `locale` (and `fetchFn`)
 * @param {number} since the seq the part starts after
 * @param {number} latest the latest seq the page has seen
 */
export async function fetchLatestPart(how, since, latest) {
  for (let from = since; ;) {
    try {
      return { ...(await fetchLog({ ...how, since: from })), since: from };
    } catch (error) {
      const next = from + Math.ceil((latest - from) / 2);
      if (!tooLarge(error) || next >= latest) throw error;
      from = next;
    }
  }
}

/**
 * Make the log panel's download line work: its button saves the log, its hint
 * says how to check the file (`{file}`: the name it is saved under). A log larger
 * than the server sends at once (413) is said so in the page's words, and the
 * button then saves its latest part instead (the later half of the events, or
 * less while that is still too large): the page cannot split the log otherwise
 * (the export takes a first seq, `since`, and no last one), and the part verifies
 * as the whole does. The whole log is the GM's to export on the server's computer.
 * @param {HTMLElement} box the line (a button and an output for the hint)
 * @param {object} how `table`, `token`, `locale`, `audience` (gm or player: the
 *   export's name for the view), `verifiable` (the table's setting as the welcome
 *   says it; :func:`showLogHint` follows its changes), `i18n` (the page's texts),
 *   `latestSeq` (() => the latest seq the page has seen)
 */
export function showLogDownload(box, { table, token, locale, audience, verifiable, i18n, latestSeq }) {
  const button = box.querySelector("button");
  const hint = box.querySelector("output");
  const said = (name) => logHint(i18n, name, box.dataset.verifiable === "on");
  box.dataset.file = logFileName(`${table}-${audience}`, "");
  delete box.dataset.verifiable;
  showLogHint(box, i18n, verifiable);
  box.hidden = false;
  // once the whole log was too large: its latest part is what the button saves
  let part = false;
  button.textContent = i18n.localize("ROLLBRIDGE.Web.Log.Download");
  button.onclick = async () => {
    // aria-disabled while it waits, not disabled: the keyboard's focus stays on it
    if (button.getAttribute("aria-disabled") === "true") return; // asked already
    button.setAttribute("aria-disabled", "true");
    try {
      const latest = latestSeq?.() ?? 0;
      const { blob, name, since } = part
        ? await fetchLatestPart({ table, token, locale }, Math.floor(latest / 2), latest)
        : { ...(await fetchLog({ table, token, locale })), since: 0 };
      save(blob, name);
      box.dataset.file = name;
      const saved = since ? i18n.format("ROLLBRIDGE.Web.Log.PartSaved", { from: since + 1 }) : "";
      hint.textContent = [saved, said(name)].filter(Boolean).join(" ");
    } catch (error) {
      if (tooLarge(error) && !part) {
        part = true;
        button.textContent = i18n.localize("ROLLBRIDGE.Web.Log.DownloadPart");
        hint.textContent = i18n.localize("ROLLBRIDGE.Web.Log.TooLarge");
      } else hint.textContent = i18n.format("ROLLBRIDGE.Web.Log.DownloadFailed", { reason: error.message });
    } finally {
      button.removeAttribute("aria-disabled");
    }
  };
}
