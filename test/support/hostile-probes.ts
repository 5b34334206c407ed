/**
 * Requests that once held the whole server (issue: "one request must never break the server for everyone
 * else"): each is sent while a cheap GET is timed beside it. Shared by test/hostile/probes.test.ts and
 * bench/probes.ts, which prints the waits.
 */
export interface Probe {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

const hogql = (name: string, sql: string): Probe => ({ name, method: "POST", path: "/api/projects/1/query/", body: { query: { kind: "HogQLQuery", query: sql } } });
const where = (name: string, expr: string): Probe => ({ name, method: "GET", path: `/api/projects/1/events/?limit=5&where=${encodeURIComponent(JSON.stringify([expr]))}` });

const terms = (n: number, term: (i: number) => string, joiner: string) => Array.from({ length: n }, (_, i) => term(i)).join(joiner);

/** `levels` CTEs above c0, each naming the one below twice: 2^(levels+1) - 1 copies once written out (issue 38 used 19). */
export function doublingCtes(levels: number): string {
  const ctes = ["c0 AS (SELECT 1 AS x)"];
  for (let k = 1; k <= levels; k++) ctes.push(`c${k} AS (SELECT x FROM c${k - 1} UNION ALL SELECT x FROM c${k - 1})`);
  return `WITH ${ctes.join(", ")} SELECT count() FROM c${levels}`;
}

export const PROBES: Probe[] = [
  hogql("SELECT 1+1+…+1, 400 terms", `SELECT ${terms(400, () => "1", "+")}`),
  hogql("2,000-term OR chain", `SELECT count() FROM events WHERE ${terms(2000, (i) => `event = 'e${i}'`, " OR ")}`),
  hogql("200 nested concat(", `SELECT ${"concat(".repeat(200)}'a'${", 'b')".repeat(200)}`),
  hogql("200 nested parentheses", `SELECT ${"(".repeat(200)}1${")".repeat(200)}`),
  hogql("300 nested parentheses", `SELECT ${"(".repeat(300)}1${")".repeat(300)}`),
  hogql("IN list of 50,000 strings", `SELECT count() FROM events WHERE event IN (${terms(50_000, (i) => `'s${i}'`, ",")})`),
  hogql("concat() of 20,000 columns", `SELECT concat(${terms(20_000, () => "event", ",")}) FROM events LIMIT 1`),
  hogql("19 CTEs, each naming the one below twice", doublingCtes(19)),
  hogql("a regex built per row", "SELECT count() FROM events WHERE match(properties.$current_url, concat('^https?://[a-z.]+/', toString(timestamp), '(a|b)*c'))"),
  where("events where: 300 nested parentheses", `${"(".repeat(300)}event = 'x'${")".repeat(300)}`),
  { name: "execute_sql: 400-term sum", method: "POST", path: "/api/environments/1/mcp_tools/execute_sql/", body: { args: { query: `SELECT ${terms(400, () => "1", "+")}` } } },
];

/** A normal query after the probes: the parser and the engine must still answer. */
export const NORMAL_QUERY: Probe = hogql("normal HogQL", "SELECT event, count() AS c FROM events GROUP BY event ORDER BY c DESC LIMIT 3");
export const NORMAL_WHERE: Probe = where("normal where", "event = '$pageview'");
/** The cheap request timed beside each probe. */
export const CHEAP: Probe = { name: "cheap GET", method: "GET", path: "/api/projects/1/insights/?limit=1" };

export interface Timed {
  status: number;
  ms: number;
  body: unknown;
}

export async function send(base: string, key: string, probe: Probe, timeoutMs = 300_000): Promise<Timed> {
  const started = performance.now();
  const res = await fetch(base + probe.path, {
    method: probe.method,
    headers: { authorization: `Bearer ${key}`, ...(probe.body === undefined ? {} : { "content-type": "application/json" }) },
    body: probe.body === undefined ? undefined : JSON.stringify(probe.body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return { status: res.status, ms: performance.now() - started, body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text };
}

/** Sends the probe, and 20 ms later the cheap GET; both answers, and how long the cheap one waited. */
export async function probeBeside(base: string, key: string, probe: Probe, timeoutMs?: number): Promise<{ probe: Timed; cheap: Timed }> {
  const { answer, cheap } = await besideCheap(base, key, () => send(base, key, probe, timeoutMs), timeoutMs);
  return { probe: answer, cheap };
}

/**
 * Starts `action` (one request or several), and 20 ms later the cheap GET; the action's outcome, and how long the
 * cheap GET waited counted from when it was due. Counting from then, not from when it left, holds for a server
 * in this process too: a held event loop delays this process's timer as well, and the cheap GET would leave late.
 */
export async function besideCheap<T>(base: string, key: string, action: () => Promise<T>, timeoutMs?: number): Promise<{ answer: T; cheap: Timed }> {
  const inFlight = action();
  // After the action's own synchronous part (building a large body is the client's time, not the server's).
  const due = performance.now() + 20;
  inFlight.catch(() => undefined); // awaited below; a timeout must not surface as an unhandled rejection first
  await new Promise((resolve) => setTimeout(resolve, 20));
  const cheap = await send(base, key, CHEAP, timeoutMs);
  // Its wait ends with its own answer, not the action's (read after that, it would be the action's time).
  const waited = performance.now() - due;
  return { answer: await inFlight, cheap: { ...cheap, ms: waited } };
}
