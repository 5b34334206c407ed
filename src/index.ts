import { parseConfig } from "./config.ts";
import type { FixtureDocument } from "./fixtures/fixture-document.ts";
import { createLogger } from "./logger.ts";
import { startServer as startCli } from "./server.ts";

export type { FixtureDocument } from "./fixtures/fixture-document.ts";
export type { paths, components, operations } from "./generated/openapi.ts";

/** The command line's options, for tests that start the server in-process (port 0 and in-memory by default). */
export interface ServerOptions {
  port?: number;
  host?: string;
  /** Main store file; omitted: the state stays in memory. */
  data?: string;
  /** A fixture file path, or the document itself. Omitted: the generated dataset. */
  fixtures?: string | FixtureDocument;
  now?: string | Date;
  seed?: number;
  persons?: number;
  events?: number;
  bodyLimit?: number;
  latency?: number | [number, number];
  corsOrigins?: string[] | "none";
  adminToken?: string;
  logLevel?: "silent" | "info" | "debug";
}

function argv(o: ServerOptions): string[] {
  const args: string[] = ["--port", String(o.port ?? 0), "--log-level", o.logLevel ?? "silent"];
  const add = (flag: string, value: unknown) => value !== undefined && args.push(flag, String(value));
  add("--host", o.host);
  if (o.data) add("--data", o.data);
  else args.push("--in-memory");
  if (typeof o.fixtures === "string") add("--fixtures", o.fixtures);
  add("--now", o.now instanceof Date ? o.now.toISOString() : o.now);
  add("--seed", o.seed);
  add("--persons", o.persons);
  add("--events", o.events);
  add("--body-limit", o.bodyLimit);
  add("--latency", Array.isArray(o.latency) ? o.latency.join("-") : o.latency);
  add("--cors-origins", Array.isArray(o.corsOrigins) ? o.corsOrigins.join(",") : o.corsOrigins);
  add("--admin-token", o.adminToken);
  return args;
}

/**
 * Starts analytics-mock in this process and resolves once it listens. `close()` stops it; the control API is
 * there as functions: `reset()`, `loadFixtures(doc)`, `clock.set/advance/get`, `requests()`.
 */
export async function startServer(options: ServerOptions = {}) {
  const config = parseConfig(argv(options))!;
  const document = typeof options.fixtures === "object" ? options.fixtures : undefined;
  const started = await startCli(config, createLogger(config.logLevel), document);
  const { control } = started;
  return {
    url: started.url,
    close: started.close,
    reset: control.reset,
    loadFixtures: control.loadFixtures,
    clock: {
      get: control.clock.get,
      set: (instant: string | Date) => control.clock.set(new Date(instant).getTime()),
      advance: (ms: number) => control.clock.advance(ms),
    },
    requests: control.requests,
    clearRequests: control.clearRequests,
  };
}

export type EmbeddedServer = Awaited<ReturnType<typeof startServer>>;
