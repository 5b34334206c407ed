import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * The clock may stand at its last instant (9999-12-31T23:59:59.999Z, control.yaml): the next refresh an answer
 * allows is then that instant too, never `+010000-…`, which is no date-time (the hostile fuzzer found it: a
 * query after a clock update to the end of the range). Each answer is validated against the document.
 */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
  await callControl(s.base, "PUT", "/clock/", { now: "9999-12-31T23:59:59.999Z" });
});
afterAll(() => s?.close());

const LAST = "9999-12-31T23:59:59.999Z";

describe("an answer's next allowed refresh at the clock's end", () => {
  it("is the last printable instant on the query API", async () => {
    const res = await s.post("/api/projects/1/query/", { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }] } });
    expect(res.status).toBe(200);
    expect(res.body.last_refresh).toBe(LAST);
    expect(res.body.next_allowed_client_refresh).toBe(LAST);
  });

  it("is the last printable instant on a saved insight", async () => {
    const res = await s.get("/api/projects/1/insights/1/?refresh=blocking");
    expect(res.status).toBe(200);
    expect(res.body.next_allowed_client_refresh).toBe(LAST);
  });
});
