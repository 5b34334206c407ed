/**
 * Waiting for an exception (issue 40): posthog-node's `captureException` sends `$exception` with its
 * `$exception_list` (the same shape posthog-js's exception autocapture sends), and the control API's wait finds
 * it by the thrown error's type and message through the kit's exceptionPattern.
 */
import { PostHog } from "posthog-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exceptionPattern } from "../../src/control/exception-pattern.ts";
import { callControl } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
let client: PostHog;
beforeEach(async () => {
  s = await startTestServer(scenario("features"));
  client = new PostHog("phc_test_features_token_0001", { host: s.base, flushAt: 1, fetchRetryCount: 0 });
});
afterEach(async () => {
  await client.shutdown();
  await s.close();
});

const wait = async (pattern: Record<string, unknown>) => (await callControl(s.base, "POST", "/captured/wait/", pattern)).body;

describe("exceptionPattern", () => {
  it("matches the $exception event on the first error of the list, naming only what is given", () => {
    expect(exceptionPattern({ type: "TypeError", message: "boom" })).toEqual({
      event: "$exception",
      properties: { "$exception_list.0.type": "TypeError", "$exception_list.0.value": "boom" },
    });
    expect(exceptionPattern()).toEqual({ event: "$exception" });
    expect(exceptionPattern({ distinct_id: "u1" })).toEqual({ event: "$exception", distinct_id: "u1" });
  });
});

describe("POST /_mock/captured/wait/ for an exception", () => {
  it("answers the $exception posthog-node sent, by its type and message, and times out on another message", async () => {
    client.captureException(new TypeError("cart is undefined"), "shopper-1");
    await client.flush();
    const found = await wait({ ...exceptionPattern({ type: "TypeError", message: "cart is undefined" }), timeout_ms: 10_000 });
    expect(found).toMatchObject({ status: "matched", count: 1 });
    expect(found.events[0]).toMatchObject({ event: "$exception", distinct_id: "shopper-1" });
    expect(found.events[0].properties.$exception_list[0]).toMatchObject({ type: "TypeError", value: "cart is undefined" });
    expect(await wait({ ...exceptionPattern({ type: "TypeError", message: "another" }), timeout_ms: 0 })).toMatchObject({ status: "timed_out", count: 0 });
    expect(await wait({ ...exceptionPattern({ type: "RangeError" }), timeout_ms: 0 })).toMatchObject({ status: "timed_out", count: 0 });
  });
});
