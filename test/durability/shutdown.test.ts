import http from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BASIC_FIXTURE, startChild, type ChildServer } from "../support/child-server.ts";
import { missingWrites, requestOf, stateOverHttp, writeOf, type Write } from "../support/write-storm.ts";

/**
 * Requests the server has started (it answered `100 Continue` to their headers) when the signal arrives
 * finish with their answers, their writes are on disk, and the process exits 0.
 */
let child: ChildServer | undefined;
afterEach(async () => {
  await child?.kill();
  child = undefined;
});

interface InFlight {
  /** Resolves once the server is handling the request (it asked for the body). */
  started: Promise<void>;
  /** Sends the body and resolves with the status. */
  finish(): Promise<number>;
}

function inFlight(base: string, w: Write): InFlight {
  const { method, path: p, headers, body } = requestOf(w);
  const url = new URL(base);
  const req = http.request({ host: url.hostname, port: url.port, method, path: p, headers: { ...headers, expect: "100-continue", "content-length": Buffer.byteLength(String(body)) }, agent: false });
  const status = new Promise<number>((resolve, reject) => {
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode!));
    });
    req.on("error", reject);
  });
  const started = new Promise<void>((resolve) => req.once("continue", () => resolve()));
  return {
    started,
    finish: () => {
      req.end(body);
      return status;
    },
  };
}

describe("graceful shutdown", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal}: in-flight requests finish, their writes are flushed, exit code 0`, { timeout: 120_000 }, async () => {
      const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-shutdown-")), "db.json");
      child = await startChild(["--data", data, "--fixtures", BASIC_FIXTURE]);
      const writes = Array.from({ length: 12 }, (_, i) => writeOf(signal, i));
      const requests = writes.map((w) => inFlight(child!.url, w));
      await Promise.all(requests.map((r) => r.started));

      child.child.kill(signal);
      const statuses = await Promise.all(requests.map((r) => r.finish()));
      expect(statuses.every((s) => s >= 200 && s < 300)).toBe(true);
      expect(await child.exited).toEqual({ code: 0, signal: null });
      expect(child.output()).toContain(`${signal}: finishing in-flight requests`);

      child = await startChild(["--data", data]);
      expect(missingWrites(await stateOverHttp(child.url), writes)).toEqual([]);
    });
  }
});
