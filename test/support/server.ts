import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AddressInfo } from "node:net";
import { createApp, type AppOptions } from "../../src/app.ts";
import { createClock } from "../../src/core/clock.ts";
import type { Config } from "../../src/config.ts";
import type { FixtureDocument } from "../../src/store/fixture-document.ts";
import { createLogger } from "../../src/core/logger.ts";
import { assertFixtureDocument, stateFromFixtures } from "../../src/store/load-fixtures.ts";
import { createStore } from "../../src/store/store.ts";
import { assertConforms } from "./contract.ts";

export const OWNER_KEY = "phx_test_owner_key_0001";
export const OTHER_KEY = "phx_test_other_key_0002";

/** A scenario from fixtures/scenarios, as a fresh copy. */
export function scenario(name: string): FixtureDocument {
  const file = fileURLToPath(new URL(`../../fixtures/scenarios/${name}.json`, import.meta.url));
  return JSON.parse(readFileSync(file, "utf8")) as FixtureDocument;
}

export const testConfig = (over: Partial<Config> = {}): Config => ({
  port: 0,
  host: "127.0.0.1",
  dataFile: null,
  fixturesFile: null,
  now: null,
  seed: 42,
  persons: null,
  events: null,
  bodyLimit: 1_048_576,
  logLevel: "silent",
  corsOrigins: ["*"],
  controlOrigins: [],
  queryTimeLimitMs: 1000,
  // A query that would run for minutes stops sooner in tests; the corpus's largest takes well under a second.
  sqlTimeLimitMs: 10_000,
  latency: null,
  adminToken: null,
  watch: false,
  requestLogSize: 1000,
  trackingPlanFile: null,
  deletionSchedule: { weekday: 0, hour: 5 },
  resetData: false,
  shiftToNow: "auto",
  ...over,
});

export interface RequestOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

export interface TestResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

/**
 * Starts the app on port 0 over an in-memory store built from a fixture document, with the document's frozen
 * clock. Every response goes through assertConforms before the test sees it.
 */
export async function startTestServer(doc: FixtureDocument, over: Partial<Config> = {}, appOptions: Pick<AppOptions, "chdbModule"> = {}) {
  assertFixtureDocument(doc);
  const clock = createClock(doc.now ? Date.parse(doc.now) : null);
  const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
  const config = testConfig(over);
  const { app, control, close: closeApp } = await createApp({ store, clock, config, logger: createLogger("silent"), ...appOptions });
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    const key = opts.key === undefined ? OWNER_KEY : opts.key;
    if (key !== null) headers.authorization ??= `Bearer ${key}`;
    let body: string | undefined = opts.raw;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(base + path, { method, headers, body });
    const text = await res.text();
    const contentType = res.headers.get("content-type");
    const parsed = contentType?.includes("json") && text ? JSON.parse(text) : text;
    await assertConforms({ method, path, status: res.status, contentType, body: text === "" ? undefined : parsed });
    return { status: res.status, body: parsed as T, text, headers: res.headers };
  }

  return {
    base,
    store,
    clock,
    control,
    request,
    get: <T = any>(path: string, opts?: RequestOptions) => request<T>("GET", path, opts),
    post: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("POST", path, { ...opts, body }),
    patch: <T = any>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("PATCH", path, { ...opts, body }),
    del: <T = any>(path: string, opts?: RequestOptions) => request<T>("DELETE", path, opts),
    /** Stops listening and the SQL engine's process, if a query started one. */
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeApp();
    },
  };
}

export type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** A GET query string as the legacy analysis forms take it: lists and objects JSON-encoded, strings as they are. */
export const qs = (filter: Record<string, unknown>): string =>
  new URLSearchParams(Object.entries(filter).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)])).toString();

/**
 * A request to a server started some other way (startServer, a child process); its answer is checked against the
 * document. `headers` are sent besides the key (an Origin, say).
 */
export async function callServer(base: string, method: string, path: string, body?: unknown, key = OWNER_KEY, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertConforms({ method, path, status: res.status, contentType: res.headers.get("content-type"), body: json });
  return { status: res.status, body: json, headers: res.headers };
}
