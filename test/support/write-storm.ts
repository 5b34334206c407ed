import http from "node:http";
import type { State } from "../../src/store/schema.ts";
import { rawRequest, type RawRequest } from "./hostile-http.ts";
import { OWNER_KEY } from "./server.ts";

/** A deterministic pseudo-random generator (mulberry32): seeded runs pick the same moments. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One write whose effect can be checked afterwards; all of them commute, so acknowledgement order does not matter. */
export type Write =
  | { kind: "create-insight"; name: string }
  | { kind: "patch-insight"; id: number; name: string }
  | { kind: "patch-person"; project: string; person: number; key: string; value: number }
  | { kind: "update-property"; project: string; person: number; key: string; value: string };

const PERSONS: [string, number][] = [
  ["1", 1],
  ["1", 2],
  ["1", 3],
  ["2", 4],
];

/** The i-th write of a storm tagged `tag`: creates, person PATCHes and update_property calls in turn. */
export function writeOf(tag: string, i: number): Write {
  const [project, person] = PERSONS[i % PERSONS.length]!;
  switch (i % 3) {
    case 0:
      return { kind: "create-insight", name: `${tag}-${i}` };
    case 1:
      return { kind: "patch-person", project, person, key: `${tag}_${i}`, value: i };
    default:
      return { kind: "update-property", project, person, key: `u_${tag}_${i}`, value: `v${i}` };
  }
}

const headers = { authorization: `Bearer ${OWNER_KEY}`, "content-type": "application/json" };

export function requestOf(w: Write): RawRequest {
  switch (w.kind) {
    case "create-insight":
      return { method: "POST", path: "/api/projects/1/insights/", headers, body: JSON.stringify({ name: w.name }) };
    case "patch-insight":
      return { method: "PATCH", path: `/api/projects/1/insights/${w.id}/`, headers, body: JSON.stringify({ name: w.name }) };
    case "patch-person":
      return { method: "PATCH", path: `/api/projects/${w.project}/persons/${w.person}/`, headers, body: JSON.stringify({ properties: { [w.key]: w.value } }) };
    case "update-property":
      return { method: "POST", path: `/api/projects/${w.project}/persons/${w.person}/update_property/`, headers, body: JSON.stringify({ key: w.key, value: w.value }) };
  }
}

/** Sends a write; resolves true when it was acknowledged (2xx), false when the connection failed first. */
export async function send(base: string, w: Write, agent?: http.Agent): Promise<boolean> {
  try {
    const res = await rawRequest(base, { ...requestOf(w), agent }, 60_000);
    if (res.status >= 300) throw new Error(`${w.kind} answered ${res.status}: ${res.text.slice(0, 200)}`);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ECONNRESET" || (e as NodeJS.ErrnoException).code === "ECONNREFUSED" || /socket hang up/.test((e as Error).message)) return false;
    throw e;
  }
}

/** The acknowledged writes missing from a state (an empty list when every one is there). */
export function missingWrites(state: State, acked: readonly Write[]): Write[] {
  const insightNames = new Set(state.meta.insights.map((i) => `${i.id}:${i.name}`));
  const names = new Set(state.meta.insights.map((i) => i.name));
  const persons = new Map(state.persons.map((p) => [`${p.project_id}:${p.id}`, p.properties]));
  return acked.filter((w) => {
    switch (w.kind) {
      case "create-insight":
        return !names.has(w.name);
      case "patch-insight":
        return !insightNames.has(`${w.id}:${w.name}`);
      case "patch-person":
      case "update-property":
        return persons.get(`${w.project}:${w.person}`)?.[w.key] !== w.value;
    }
  });
}

/** The state as the API shows it (insights of project 1, persons 1–4), for checks through HTTP. */
export async function stateOverHttp(base: string): Promise<State> {
  const get = async (path: string) => (await rawRequest(base, { method: "GET", path, headers })).body as any;
  const insights = (await get("/api/projects/1/insights/?limit=100000")).results as { id: number; name: string }[];
  const persons = await Promise.all(PERSONS.map(([project, id]) => get(`/api/projects/${project}/persons/${id}/`).then((p) => ({ ...p, project_id: project }))));
  return { meta: { insights } as unknown as State["meta"], persons, events: [], activity: [] } as unknown as State;
}

/**
 * Sends writes from `workers` keep-alive connections until the server dies, and kills it with SIGKILL once
 * `killAfter` of them were acknowledged. `write(n)` makes the n-th write and its record, `deliver` sends one and
 * says whether it was acknowledged; acknowledged records are pushed to `acked`. Resolves with how many this
 * storm acknowledged, once the process has exited.
 */
export async function stormUntilKilled<W, R>(
  server: { url: string; child: { kill(signal: NodeJS.Signals): boolean }; exited: Promise<unknown> },
  opts: { workers: number; killAfter: number; write: (n: number) => W; record: (w: W) => R; deliver: (url: string, w: W, agent: http.Agent) => Promise<boolean> },
  acked: R[],
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.workers });
  let next = 0;
  let ackedHere = 0;
  let dead = false;
  const worker = async () => {
    while (!dead) {
      const w = opts.write(next++);
      if (!(await opts.deliver(server.url, w, agent))) {
        dead = true;
        return;
      }
      acked.push(opts.record(w));
      if (++ackedHere === opts.killAfter) {
        server.child.kill("SIGKILL");
        dead = true;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, worker));
  agent.destroy();
  await server.exited;
  return ackedHere;
}
