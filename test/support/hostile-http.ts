import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import stringify from "safe-stable-stringify";
import { createApp } from "../../src/app.ts";
import { createClock } from "../../src/core/clock.ts";
import type { Config } from "../../src/config.ts";
import type { FixtureDocument } from "../../src/store/fixture-document.ts";
import { answerClientErrors } from "../../src/http/client-errors.ts";
import { createLogger } from "../../src/core/logger.ts";
import { assertFixtureDocument, stateFromFixtures } from "../../src/store/load-fixtures.ts";
import type { State } from "../../src/store/schema.ts";
import { createStore } from "../../src/store/store.ts";
import { captureContract } from "./capture-contract.ts";
import { assertConforms, contract } from "./contract.ts";
import { controlContract } from "./control-contract.ts";
import { OTHER_KEY, OWNER_KEY, testConfig } from "./server.ts";

/** A request as sent on the wire: the path is not normalised or encoded, the body is bytes or text as given. */
export interface RawRequest {
  method: string;
  /** Path and query exactly as they go on the request line. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
  /** The connection pool; by default one shared keep-alive agent of 16 sockets. */
  agent?: http.Agent;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON when the answer is JSON, the text otherwise, undefined when empty. */
  body: unknown;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

/** Rejects (never hangs) when no complete answer came within `timeoutMs`. */
export function rawRequest(base: string, req: RawRequest, timeoutMs = 20_000): Promise<RawResponse> {
  const url = new URL(base);
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, "utf8");
  const headers: Record<string, string> = { ...req.headers };
  // Node frames a GET or DELETE body only when told: without a length or chunking the bytes would run into the next request.
  if (body !== undefined) {
    if (req.chunked) headers["transfer-encoding"] = "chunked";
    else headers["content-length"] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: req.agent ?? agent, setHost: true },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString("utf8");
          const type = res.headers["content-type"] ?? "";
          let parsed: unknown = text === "" ? undefined : text;
          if (text !== "" && type.includes("json")) {
            try {
              parsed = JSON.parse(text);
            } catch {
              reject(new Error(`${req.method} ${req.path}: ${res.statusCode} declared JSON but is not: ${text.slice(0, 200)}`));
              return;
            }
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, body: parsed });
        });
      },
    );
    const timer = setTimeout(() => {
      r.destroy(new Error(`${req.method} ${req.path.slice(0, 200)}: no answer within ${timeoutMs} ms (hang)`));
    }, timeoutMs);
    r.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    if (body !== undefined) r.end(body);
    else r.end();
  });
}

/** Keys that must never appear in an answer (the fixture's keys and any unknown key a test sent). */
export const KNOWN_KEYS = [OWNER_KEY, OTHER_KEY];

/** The capture surface's paths (openapi/capture.yaml), with or without their trailing slash. */
const CAPTURE_PATH =
  /^\/(?:(?:e|i\/v0\/e|capture|track|engage|batch|s|flags|decide|api\/feature_flag\/local_evaluation|api\/(?:early_access_features|web_experiments|surveys))(?:\/|$|\?)|array\/|static\/)/;

/** The document that describes a path: the control API under `/_mock/`, capture at the root, the product API elsewhere. */
export function documentOf(path: string) {
  if (path === "/_mock" || path.startsWith("/_mock/") || path.startsWith("/_mock?")) return controlContract();
  if (CAPTURE_PATH.test(path)) return captureContract();
  return contract();
}

/**
 * The properties every answer to hostile input must have: no 5xx, the Error shape on every 4xx (but the bodiless 405 of DELETE insight), conformance to the
 * document of its path (openapi.yaml, capture.yaml or control.yaml), and no API key in full.
 */
export async function assertSafeAnswer(req: RawRequest, res: RawResponse, secrets: readonly string[] = KNOWN_KEYS): Promise<void> {
  const where = `${req.method} ${req.path.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`${where}: ${res.status} ${res.text.slice(0, 500)}`);
  if (res.status >= 400 && !(res.status === 405 && req.method === "DELETE" && res.text === "")) {
    const body = res.body as Record<string, unknown> | undefined;
    const keys = body && typeof body === "object" ? Object.keys(body).sort().join(",") : "";
    if (keys !== "attr,code,detail,type") throw new Error(`${where}: ${res.status} without the Error shape: ${res.text.slice(0, 300)}`);
  }
  for (const secret of secrets) {
    if (res.text.includes(secret)) throw new Error(`${where}: the answer contains an API key in full`);
  }
  const contentType = Array.isArray(res.headers["content-type"]) ? res.headers["content-type"][0]! : (res.headers["content-type"] ?? null);
  await assertConforms({ method: req.method, path: req.path, status: res.status, contentType, body: res.body }, documentOf(req.path));
}

/** The app over a Memory store built from a fixture document (its frozen clock), with its control functions. */
export async function startHostileServer(doc: FixtureDocument, over: Partial<Config> = {}) {
  assertFixtureDocument(doc);
  const clock = createClock(doc.now ? Date.parse(doc.now) : null);
  const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
  const { app, control } = await createApp({ store, clock, config: testConfig(over), logger: createLogger("silent") });
  const server = app.listen(0, "127.0.0.1");
  answerClientErrors(server);
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    store,
    control,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type HostileServer = Awaited<ReturnType<typeof startHostileServer>>;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * The keys of the flags made with a random part: a web experiment's (`<name>-web-experiment-feature-<10 hex>`) and a
 * survey's targeting flags (`survey-targeting-<10 hex>[-custom]`). Known by their shape, not by their owner: a
 * deleted web experiment leaves its flag behind.
 */
const RANDOM_FLAG_KEY = /(?:^|-)web-experiment-feature-[0-9a-f]{10}$|^survey-targeting-[0-9a-f]{10}(?:-custom)?$/;

/**
 * A hash of the state that two runs of the same accepted writes agree on: the only random parts of a
 * write (an insight's generated short_id, an activity entry's uuid, a captured event's generated uuid,
 * also named by its person's `$creator_event_uuid`, an early access feature's, a survey's and its
 * questions' uuids, the random keys of the flags web experiments and surveys make) are replaced by their position.
 */
export function stateDigest(state: State): string {
  return createHash("sha256").update(normalisedState(state)).digest("hex");
}

/** The state as stateDigest hashes it: JSON with the random parts replaced by their position, and the stamps reads leave out. */
export function normalisedState(state: State): string {
  const shortIds = new Map(state.meta.insights.map((i) => [i.short_id, `short#${i.id}`]));
  const events = state.events.toArray();
  const randomIds = new Map([...events.map((e, n) => [e.uuid, `event#${n}`] as const), ...randomRecordIds(state)]);
  const normal = {
    ...state,
    events,
    meta: {
      ...state.meta,
      feature_flags: state.meta.feature_flags.map((f) => (RANDOM_FLAG_KEY.test(f.key) ? { ...f, key: `flag-key#${f.id}` } : f)),
      insights: state.meta.insights.map((i) => ({ ...i, short_id: shortIds.get(i.short_id) })),
      // Retrieving a dashboard stamps when it was last opened, as the real service does: a read, not a write.
      dashboards: state.meta.dashboards.map((d) => ({ ...d, last_accessed_at: null })),
      // A sharing token is random (as the real service's): its place stands for it.
      sharing_configurations: state.meta.sharing_configurations?.map((c, n) => ({ ...c, access_token: `token#${n}` })),
    },
    activity: state.activity.map((a, n) => ({
      ...a,
      id: `activity#${n}`,
      detail: { ...a.detail, short_id: a.detail.short_id === null ? null : (shortIds.get(a.detail.short_id) ?? a.detail.short_id) },
    })),
  };
  return (stringify(normal) ?? "").replace(UUID, (id) => randomIds.get(id) ?? id);
}

/** The uuids the server draws for early access features, surveys and survey questions (named in flag filters too), each by its position. */
function randomRecordIds(state: State): [string, string][] {
  const features = (state.meta.early_access_features ?? []).map((f, n): [string, string] => [f.id, `early-access#${n}`]);
  const surveys = (state.meta.surveys ?? []).flatMap((survey, n): [string, string][] => [
    [survey.id, `survey#${n}`],
    ...(survey.questions ?? []).map((q, m): [string, string] => [String(q.id), `question#${n}.${m}`]),
  ]);
  return [...features, ...surveys];
}
