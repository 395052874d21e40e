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

/**
 * Make the log panel's download line work: its button saves the log, its hint
 * says how to check the file (`{file}`: the name it is saved under).
 * @param {HTMLElement} box the line (a button and an output for the hint)
 * @param {object} how `table`, `token`, `locale`, `audience` (gm or player: the
 *   export's name for the view), `i18n` (the page's texts)
 */
export function showLogDownload(box, { table, token, locale, audience, i18n }) {
  const button = box.querySelector("button");
  const hint = box.querySelector("output");
  const said = (name) => i18n.format("ROLLBRIDGE.Web.Log.Verify", { file: name });
  hint.textContent = said(logFileName(`${table}-${audience}`, ""));
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
      hint.textContent = said(name);
    } catch (error) {
      hint.textContent = i18n.format("ROLLBRIDGE.Web.Log.DownloadFailed", { reason: error.message });
    } finally {
      button.disabled = false;
    }
  };
}
