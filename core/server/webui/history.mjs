// The table's log from before the page joined: the session log export of the
// same server (GET /tables/ID/export?format=jsonl, docs/protocol.md "Session log
// over HTTP"), with the token in the Authorization header — never in the URL —
// and the events exactly as this token's audience was sent them.

/** Events of the log kept on joining (the latest). */
export const HISTORY_EVENTS = 200;

/** The events up to `upTo` (the welcome's seq), the latest `keep` of them, as the
 * token's audience sees them; [] when the server does not give them. */
export async function fetchHistory({ table, token, locale, upTo, keep = HISTORY_EVENTS, fetchFn = globalThis.fetch }) {
  if (!Number.isInteger(upTo) || upTo < 1) return [];
  const query = new URLSearchParams({ format: "jsonl", since: String(Math.max(0, upTo - keep)) });
  if (locale) query.set("locale", locale);
  let answer;
  try {
    answer = await fetchFn(`/tables/${encodeURIComponent(table)}/export?${query}`, {
      headers: { Authorization: `Bearer ${token}` },
      cache: "no-store",
      credentials: "omit",
      referrerPolicy: "no-referrer",
    });
  } catch {
    return [];
  }
  if (!answer.ok) return [];
  const events = [];
  for (const line of (await answer.text()).split("\n")) {
    if (!line.trim()) continue;
    try {
      const event = JSON.parse(line);
      if (event?.type === "event" && Number.isInteger(event.seq) && event.seq <= upTo) events.push(event);
    } catch {
      return events; // a cut line: keep what came whole
    }
  }
  return events;
}
