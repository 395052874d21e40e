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

/** The whole log as this token's audience was sent it: `{ blob, name }`; an Error
 * with the server's message (or the network's) when it is refused. */
export async function fetchLog({ table, token, locale, fetchFn = globalThis.fetch }) {
  const query = new URLSearchParams({ format: "jsonl" });
  if (locale) query.set("locale", locale);
  const answer = await fetchFn(`/tables/${encodeURIComponent(table)}/export?${query}`, {
    headers: { Authorization: `Bearer ${token}` },
    cache: "no-store",
    credentials: "omit",
    referrerPolicy: "no-referrer",
  });
  if (!answer.ok) {
    let message = `HTTP ${answer.status}`;
    try {
      message = (await answer.json())?.message || message;
    } catch {
      // not the server's JSON error: its status says enough
    }
    throw new Error(message);
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

/**
 * Make the log panel's download line work: its button saves the log, its hint
 * says how to check the file (`{file}`: the name it is saved under).
 * @param {HTMLElement} box the line (a button and an output for the hint)
 * @param {object} how `table`, `token`, `locale`, `audience` (gm or player: the
 *   export's name for the view), `verifiable` (the table's setting as the welcome
 *   says it; :func:`showLogHint` follows its changes), `i18n` (the page's texts)
 */
export function showLogDownload(box, { table, token, locale, audience, verifiable, i18n }) {
  const button = box.querySelector("button");
  const hint = box.querySelector("output");
  const said = (name) => logHint(i18n, name, box.dataset.verifiable === "on");
  box.dataset.file = logFileName(`${table}-${audience}`, "");
  delete box.dataset.verifiable;
  showLogHint(box, i18n, verifiable);
  box.hidden = false;
  button.onclick = async () => {
    button.disabled = true;
    try {
      const { blob, name } = await fetchLog({ table, token, locale });
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = name;
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      box.dataset.file = name;
      hint.textContent = said(name);
    } catch (error) {
      hint.textContent = i18n.format("ROLLBRIDGE.Web.Log.DownloadFailed", { reason: error.message });
    } finally {
      button.disabled = false;
    }
  };
}
