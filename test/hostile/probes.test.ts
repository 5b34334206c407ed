import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startChild, type ChildServer } from "../support/child-server.ts";
import { assertConforms } from "../support/contract.ts";
import { NORMAL_QUERY, NORMAL_WHERE, PROBES, probeBeside, send, type Probe, type Timed } from "../support/hostile-probes.ts";

/**
 * Each probe that once broke HogQL for everyone or held the event loop for seconds, sent to a server of its own
 * (100,000 generated events) while a cheap GET is timed beside it. The bound is generous so that it holds on a
 * slow, shared machine; bench/probes.ts prints the real waits.
 */
const CHEAP_BOUND_MS = 2_000;

let server: ChildServer;
let key: string;

beforeAll(async () => {
  server = await startChild(["--in-memory", "--events", "100000", "--persons", "1000"]);
  key = /API key: (phx_\S+)/.exec(server.output())![1]!;
}, 120_000);
afterAll(() => server.kill());

async function conforming(probe: Probe, answer: Timed): Promise<void> {
  const path = probe.path.split("?")[0]!;
  await assertConforms({ method: probe.method, path, status: answer.status, contentType: "application/json", body: answer.body });
}

describe("one request never breaks HogQL or holds the server for everyone else", () => {
  for (const probe of PROBES) {
    it(`${probe.name}: answered without a 5xx while a cheap GET waits < ${CHEAP_BOUND_MS} ms; HogQL works afterwards`, { timeout: 120_000 }, async () => {
      const { probe: answer, cheap } = await probeBeside(server.url, key, probe);
      console.info(`probe ${probe.name}: ${answer.status} in ${answer.ms.toFixed(0)} ms; cheap GET waited ${cheap.ms.toFixed(0)} ms`);
      expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBeLessThan(500);
      await conforming(probe, answer);
      if (answer.status >= 400) expect(answer.body).toMatchObject({ type: "validation_error", attr: expect.any(String) });
      expect(cheap.status).toBe(200);
      expect(cheap.ms).toBeLessThan(CHEAP_BOUND_MS);
      for (const normal of [NORMAL_QUERY, NORMAL_WHERE]) {
        const after = await send(server.url, key, normal);
        expect(after.status, `${normal.name} after "${probe.name}": ${JSON.stringify(after.body).slice(0, 300)}`).toBe(200);
      }
    });
  }

  it("names the limit a refused query broke, on the field that holds it", async () => {
    const refused = await send(server.url, key, PROBES.find((p) => p.name.startsWith("300 nested"))!);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ attr: "query__query", detail: expect.stringMatching(/nested deeper than 16/) });
    const sql = await send(server.url, key, PROBES.find((p) => p.name.startsWith("execute_sql"))!);
    expect(sql.body).toMatchObject({ success: false, content: expect.stringMatching(/more than 128 operators/) });
  });
});
