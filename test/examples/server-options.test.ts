import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { defaultApiKey } from "../../src/fixtures/users.ts";
import { startServer, StartupError, type EmbeddedServer, type ServerOptions } from "../../src/index.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { callControl } from "../support/control-contract.ts";
import { callServer, OWNER_KEY, scenario } from "../support/server.ts";

/**
 * Every option `startServer` documents (src/index.ts `ServerOptions`; README, "Embedded in a test suite"), one
 * test each, seen from outside: over HTTP, every answer checked against its document (callServer, callControl,
 * captureRequest), or through the returned handle. Each test fails when its option is dropped on the way from
 * `startServer` to the server (checked by taking each one out of `argv()` in src/index.ts); where the default
 * would pass as well, the test shows the default's answer beside the option's.
 *
 * Proven elsewhere, through `startServer` as well, and not repeated here:
 * - `fixtures` as a document: test/examples/embedding.test.ts, its beforeAll and "starts in-process on a free
 *   port, frozen at the fixture's now" (the document's clock) and "drives the API…" (the document's insight);
 * - `scenario`: test/examples/embedding.test.ts, "starts a bundled scenario by name…";
 * - `queryTimeLimitMs`: test/examples/embedding.test.ts, "honours queryTimeLimitMs per server…";
 * - `trackingPlan`, a file and an object: test/integration/control-tracking-plan.test.ts, "--tracking-plan FILE
 *   and the embedded trackingPlan option".
 */

const BASIC_NOW = "2024-03-05T12:00:00.000Z";
const tmp = () => mkdtempSync(path.join(tmpdir(), "server-options-"));

/** Starts a server, runs `use` on it, and closes it whatever happens. */
async function withServer<T>(options: ServerOptions, use: (server: EmbeddedServer) => Promise<T>): Promise<T> {
  const server = await startServer(options);
  try {
    return await use(server);
  } finally {
    await server.close();
  }
}

/** The newest event's time in project 1 (the events list is newest first). */
async function newestEvent(server: EmbeddedServer, key = OWNER_KEY): Promise<string> {
  const page = await callServer(server.url, "GET", "/api/projects/1/events/?limit=1", undefined, key);
  return new Date(page.body.results[0].timestamp).toISOString();
}

/** An IPv4 address of this machine other than loopback, if it has one: a client from there is not local. */
const OUTSIDE = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address;

/** A port free now, for a server to take next. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Milliseconds one call takes. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** Collects into `lines` what is written to stderr while `use` runs. */
async function stderrDuring(lines: string[], use: () => Promise<void>): Promise<void> {
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await use();
  } finally {
    spy.mockRestore();
  }
}

/** The basic scenario with defaults everywhere: what each option is compared against. */
let plain: EmbeddedServer;
beforeAll(async () => {
  plain = await startServer({ scenario: "basic" });
});
afterAll(() => plain.close());

describe("where the server listens", () => {
  it("port: listens on the port given", async () => {
    const port = await freePort();
    await withServer({ scenario: "basic", port }, async (server) => {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      expect((await callServer(`http://127.0.0.1:${port}`, "GET", "/api/projects/")).status).toBe(200);
    });
  });

  it.skipIf(OUTSIDE === undefined)(`host: listens on that interface only (skipped on a machine with loopback only)`, async () => {
    await withServer({ scenario: "basic", host: OUTSIDE }, async (server) => {
      expect(server.url).toMatch(new RegExp(`^http://${OUTSIDE!.replaceAll(".", "\\.")}:\\d+$`));
      expect((await callServer(server.url, "GET", "/api/projects/")).status).toBe(200);
      const { port } = new URL(server.url);
      await expect(fetch(`http://127.0.0.1:${port}/api/projects/`)).rejects.toThrow();
    });
  });
});

describe("where the state comes from", () => {
  it("data: the state is kept in that file across restarts", async () => {
    const data = path.join(tmp(), "db.json");
    const created = await withServer({ scenario: "basic", data }, (server) => callServer(server.url, "POST", "/api/projects/1/insights/", { name: "Kept" }));
    expect(created.status).toBe(201);
    await withServer({ data }, async (server) => {
      expect((await callServer(server.url, "GET", `/api/projects/1/insights/${created.body.id}/`)).body.name).toBe("Kept");
    });
  });

  it("resetData: the start-up dataset replaces the state stored in `data`; without it, the stored state of an unchanged fixture is served", async () => {
    const data = path.join(tmp(), "db.json");
    const created = await withServer({ scenario: "basic", data }, (server) => callServer(server.url, "POST", "/api/projects/1/insights/", { name: "Mine" }));
    await withServer({ scenario: "basic", data }, async (server) => {
      expect((await callServer(server.url, "GET", `/api/projects/1/insights/${created.body.id}/`)).body.name).toBe("Mine");
    });
    await withServer({ scenario: "basic", data, resetData: true }, async (server) => {
      expect((await callServer(server.url, "GET", `/api/projects/1/insights/${created.body.id}/`)).status).toBe(404);
    });
  });

  it("fixtures: a file path, relative to the working directory, is the start-up state", async () => {
    const doc = scenario("basic");
    doc.insights!.find((i) => i.short_id === "PgVw0001")!.name = "Pageviews from my file";
    const file = path.join(tmp(), "mine.json");
    writeFileSync(file, JSON.stringify(doc));
    await withServer({ fixtures: path.relative(process.cwd(), file) }, async (server) => {
      const listed = await callServer(server.url, "GET", "/api/projects/1/insights/?short_id=PgVw0001");
      expect(listed.body.results[0].name).toBe("Pageviews from my file");
    });
    expect((await callServer(plain.url, "GET", "/api/projects/1/insights/?short_id=PgVw0001")).body.results[0].name).toBe("Pageviews");
  });

  it("shiftToNow: true moves a fixture's times so its newest event is now; fixtures keep them by default", async () => {
    const now = "2025-01-10T00:00:00.000Z";
    await withServer({ scenario: "basic", now, shiftToNow: true }, async (server) => {
      expect(await newestEvent(server)).toBe(now);
    });
    await withServer({ scenario: "basic", now }, async (server) => {
      expect(await newestEvent(server)).toBe(BASIC_NOW);
    });
  });

  it("shiftToNow: false keeps a stored generated dataset's times, which are moved to now by default", async () => {
    const data = path.join(tmp(), "db.json");
    const [generatedAt, twoWeeksLater] = ["2025-06-01T12:00:00.000Z", "2025-06-15T12:00:00.000Z"];
    const size = { persons: 20, events: 500 };
    await withServer({ data, ...size, now: generatedAt }, async () => undefined);
    const key = defaultApiKey(42);
    await withServer({ data, now: twoWeeksLater, shiftToNow: false }, async (server) => {
      expect(Date.parse(await newestEvent(server, key))).toBeLessThanOrEqual(Date.parse(generatedAt));
    });
    await withServer({ data, now: twoWeeksLater }, async (server) => {
      expect(await newestEvent(server, key)).toBe(twoWeeksLater);
    });
  });

  it("now: freezes the clock there, as a string or a Date, instead of the fixture's now", async () => {
    expect((await callControl(plain.url, "GET", "/clock/")).body).toEqual({ now: BASIC_NOW, frozen: true });
    for (const now of ["2030-01-02T03:04:05Z", new Date("2030-01-02T03:04:05Z")]) {
      await withServer({ scenario: "basic", now }, async (server) => {
        expect((await callControl(server.url, "GET", "/clock/")).body).toEqual({ now: "2030-01-02T03:04:05.000Z", frozen: true });
        const created = await callServer(server.url, "POST", "/api/projects/1/insights/", { name: "Stamped" });
        expect(created.body.created_at).toBe("2030-01-02T03:04:05.000Z");
      });
    }
  });

  it("seed: the generated dataset is the seed's, with the seed's demo key", async () => {
    const size = { persons: 20, events: 300, now: "2025-06-01T00:00:00Z" };
    await withServer({ ...size, seed: 7 }, async (server) => {
      expect(server.credentials().api_key).toBe(defaultApiKey(7));
      expect((await callServer(server.url, "GET", "/api/projects/", undefined, defaultApiKey(7))).status).toBe(200);
      expect((await callServer(server.url, "GET", "/api/projects/", undefined, defaultApiKey(42))).status).toBe(401);
    });
  });

  it("persons, events: the size of the generated dataset", async () => {
    const [persons, events] = [25, 4000];
    await withServer({ persons, events, now: "2025-06-01T00:00:00Z" }, async (server) => {
      // The start-up state's counts, as a reset reports them (both projects together).
      const counts = (await callControl(server.url, "POST", "/reset/")).body as { persons: number; events: number };
      expect(counts.persons).toBe(persons);
      // `events` is each person's budget of activity; a journey's first visit or sign-up may pass it by a few events.
      expect(counts.events).toBeGreaterThanOrEqual(events);
      expect(counts.events).toBeLessThan(events + 10 * persons);
    });
  });
});

describe("how requests are answered", () => {
  it("bodyLimit: a larger body is a 413, one the default limit (1 MiB) takes", async () => {
    // 3 KB: a series label long enough to pass 2 KB.
    const body = { name: "Big", filters: { insight: "TRENDS", events: [{ id: "$pageview", custom_name: "x".repeat(3000) }] } };
    await withServer({ scenario: "basic", bodyLimit: 2048 }, async (server) => {
      const refused = await callServer(server.url, "POST", "/api/projects/1/insights/", body);
      expect(refused.status).toBe(413);
      expect((await callServer(server.url, "POST", "/api/projects/1/insights/", { name: "Small" })).status).toBe(201);
    });
    expect((await callServer(plain.url, "POST", "/api/projects/1/insights/", body)).status).toBe(201);
    await plain.reset();
  });

  it("latency: every answer of the product API, capture and flags waits that long, a number or a range", async () => {
    // Lower bounds only, a few ms short of the latency: a timer may fire a millisecond early.
    for (const latency of [200, [200, 210] as [number, number]]) {
      await withServer({ scenario: "basic", latency }, async (server) => {
        const read = () => callServer(server.url, "GET", "/api/projects/1/insights/?short_id=PgVw0001");
        expect(await timed(read)).toBeGreaterThanOrEqual(195);
        // A repeated read (answered ahead of express when nothing steers it) waits as well.
        expect(await timed(read)).toBeGreaterThanOrEqual(195);
        const flags = () =>
          captureRequest(server.url, "POST", "/flags/?v=2", {
            body: JSON.stringify({ token: server.credentials().token, distinct_id: "a" }),
            headers: { "content-type": "application/json" },
          });
        expect(await timed(flags)).toBeGreaterThanOrEqual(195);
      });
    }
  });

  it("corsOrigins: only the origins listed get CORS, none with \"none\"; by default any origin is mirrored", async () => {
    const allowedOrigin = async (server: EmbeddedServer, origin: string) =>
      (await callServer(server.url, "GET", "/api/projects/", undefined, OWNER_KEY, { origin })).headers.get("access-control-allow-origin");
    expect(await allowedOrigin(plain, "http://elsewhere.test")).toBe("http://elsewhere.test");
    await withServer({ scenario: "basic", corsOrigins: ["http://app.test"] }, async (server) => {
      expect(await allowedOrigin(server, "http://app.test")).toBe("http://app.test");
      expect(await allowedOrigin(server, "http://elsewhere.test")).toBeNull();
    });
    await withServer({ scenario: "basic", corsOrigins: "none" }, async (server) => {
      expect(await allowedOrigin(server, "http://app.test")).toBeNull();
    });
  });

  it("controlOrigins: pages of the origins listed may call the control API; other pages get a 403, as by default", async () => {
    const clockFrom = (server: EmbeddedServer, origin: string) => callControl(server.url, "GET", "/clock/", undefined, { origin });
    expect((await clockFrom(plain, "http://app.test")).status).toBe(403);
    await withServer({ scenario: "basic", controlOrigins: ["http://app.test"] }, async (server) => {
      const allowed = await clockFrom(server, "http://app.test");
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get("access-control-allow-origin")).toBe("http://app.test");
      expect((await clockFrom(server, "http://elsewhere.test")).status).toBe(403);
    });
  });

  it.skipIf(OUTSIDE === undefined)(`adminToken: opens the control API to a client off this machine's loopback that sends it (skipped on a machine with loopback only)`, async () => {
    await withServer({ scenario: "basic", host: "0.0.0.0", adminToken: "let-me-in" }, async (server) => {
      const base = `http://${OUTSIDE}:${new URL(server.url).port}`;
      const clockWith = (headers: Record<string, string>) => callControl(base, "GET", "/clock/", undefined, headers);
      expect((await clockWith({})).status).toBe(403);
      expect((await clockWith({ "x-admin-token": "let-me-out" })).status).toBe(403);
      expect((await clockWith({ "x-admin-token": "let-me-in" })).body).toEqual({ now: BASIC_NOW, frozen: true });
    });
  });

  it("logLevel: \"info\" writes one line per request to stderr, without the key; silent by default", async () => {
    const lines: string[] = [];
    await stderrDuring(lines, async () => {
      await callServer(plain.url, "GET", "/api/projects/1/persons/");
      await withServer({ scenario: "basic", logLevel: "info" }, async (server) => {
        await callServer(server.url, "GET", "/api/projects/1/insights/");
        // The line is written when the answer has been handed over, which may come after the client has read it.
        await vi.waitFor(() => expect(lines.some((l) => l.startsWith("GET /api/projects/1/insights/ 200 "))).toBe(true));
      });
    });
    expect(lines.some((l) => l.includes("/api/projects/1/persons/"))).toBe(false);
    expect(lines.join("")).not.toContain(OWNER_KEY);
  });

  it("rateLimits: the 241st analytics request of a minute is throttled with Retry-After; never by default", async () => {
    /** 241 calls of the events list, in batches: the last one's answer. */
    const after240 = async (server: EmbeddedServer) => {
      for (let i = 0; i < 240; i += 40) {
        const batch = await Promise.all(Array.from({ length: 40 }, () => callServer(server.url, "GET", "/api/projects/1/events/?limit=1")));
        expect(batch.every((r) => r.status === 200)).toBe(true);
      }
      return callServer(server.url, "GET", "/api/projects/1/events/?limit=1");
    };
    await withServer({ scenario: "basic", rateLimits: true }, async (server) => {
      const refused = await after240(server);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ type: "throttled_error", code: "throttled" });
      expect(refused.headers.get("retry-after")).toBe("60");
    });
    expect((await after240(plain)).status).toBe(200);
  });

  it("sessionRecording: remote config records every project's sessions, even one that did not opt in; its own setting by default", async () => {
    // features.json's project 2 names no setting: the real default, session_recording_opt_in false.
    const recording = async (options: ServerOptions) =>
      withServer(options, async (server) => (await captureRequest(server.url, "GET", "/array/phc_test_features_token_0002/config")).body.sessionRecording);
    expect(await recording({ scenario: "features", sessionRecording: true })).toMatchObject({ endpoint: "/s/" });
    expect(await recording({ scenario: "features" })).toBe(false);
  });
});
