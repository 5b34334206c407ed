import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PostHog } from "posthog-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startServer, StartupError, type TrackingPlan } from "../../src/index.ts";
import { assertControlConforms } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/** A tracking plan splits captured events into valid and invalid, with the reason, as Snowplow Micro does. */
const PLAN: TrackingPlan = {
  events: {
    "clicked buy": { type: "object", required: ["price"], properties: { price: { type: "number" }, currency: { enum: ["EUR", "USD"] } } },
  },
};

let s: TestServer;
let client: PostHog;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
  client = new PostHog(s.store.projects.get("1")!.api_token, { host: s.base, flushAt: 20, flushInterval: 0, fetchRetryCount: 0 });
});
afterEach(async () => {
  await client.shutdown();
  await s.close();
});

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.base}/_mock${path}`, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertControlConforms(method, `/_mock${path.split("?")[0]}`, res.status, json);
  return { status: res.status, body: json };
}

async function captureSome() {
  client.capture({ distinctId: "u1", event: "clicked buy", properties: { price: 12, currency: "EUR" } });
  client.capture({ distinctId: "u1", event: "clicked buy", properties: { price: "12" } });
  client.capture({ distinctId: "u2", event: "clicked buy", properties: { currency: "GBP" } });
  client.capture({ distinctId: "u2", event: "viewed cart" });
  await client.flush();
}

describe("the tracking plan", () => {
  it("judges captured events: invalid ones name the property and what is wrong", async () => {
    expect(await control("PUT", "/tracking_plan/", PLAN)).toEqual({ status: 200, body: { plan: PLAN } });
    await captureSome();
    const bad = (await control("GET", "/captured/events/?valid=false")).body;
    expect(bad.total).toBe(2);
    const [missing, wrongType] = bad.results;
    expect(wrongType).toMatchObject({ distinct_id: "u1", valid: false, errors: [{ property: "price", message: "price must be number" }] });
    expect(missing.distinct_id).toBe("u2");
    expect(missing.errors).toEqual(
      expect.arrayContaining([
        { property: "price", message: "must have required property 'price'" },
        { property: "currency", message: 'currency must be equal to one of the allowed values: "EUR", "USD"' },
      ]),
    );
    const good = (await control("GET", "/captured/events/?valid=true")).body.results;
    expect(good.map((e: any) => e.event).sort()).toEqual(["clicked buy", "viewed cart"]);
    expect((await control("POST", "/captured/wait/", { valid: false, count: 2, timeout_ms: 1000 })).body).toMatchObject({ status: "matched", count: 2 });
  });

  it("judges events already captured when it is set later, and is gone after DELETE", async () => {
    await captureSome();
    expect((await control("GET", "/captured/events/?valid=false")).body.total).toBe(0);
    expect((await control("GET", "/captured/events/?event=viewed%20cart")).body.results[0]).toMatchObject({ valid: null, errors: [] });
    await control("PUT", "/tracking_plan/", PLAN);
    expect((await control("GET", "/captured/events/?valid=false")).body.total).toBe(2);
    expect((await control("GET", "/tracking_plan/")).body).toEqual({ plan: PLAN });
    expect((await control("DELETE", "/tracking_plan/")).status).toBe(204);
    expect((await control("GET", "/tracking_plan/")).body).toEqual({ plan: null });
    expect((await control("GET", "/captured/events/?valid=false")).body.total).toBe(0);
  });

  it("marks events of a name it does not list invalid under additional_events: deny", async () => {
    await control("PUT", "/tracking_plan/", { ...PLAN, additional_events: "deny" });
    await captureSome();
    const [cart] = (await control("GET", "/captured/events/?event=viewed%20cart")).body.results;
    expect(cart).toMatchObject({ valid: false, errors: [{ property: null, message: 'event "viewed cart" is not in the tracking plan' }] });
  });

  it("refuses a plan that is no plan or whose schema does not compile, with a 400 naming it", async () => {
    expect(await control("PUT", "/tracking_plan/", { events: { x: { type: "nonsense" } } })).toMatchObject({ status: 400, body: { attr: "events__x" } });
    expect(await control("PUT", "/tracking_plan/", { events: {}, additional_events: "maybe" })).toMatchObject({ status: 400, body: { attr: "additional_events" } });
    expect(await control("PUT", "/tracking_plan/", { event: {} })).toMatchObject({ status: 400 });
    expect((await control("GET", "/tracking_plan/")).body).toEqual({ plan: null });
  });
});

describe("a fixture document's tracking_plan", () => {
  const basic = () => JSON.parse(readFileSync(new URL("../../fixtures/scenarios/basic.json", import.meta.url), "utf8")) as Record<string, unknown>;

  it("is set by PUT /_mock/state/ with the document, and judges what is captured next", async () => {
    expect((await control("PUT", "/state/", { ...basic(), tracking_plan: PLAN })).status).toBe(200);
    expect((await control("GET", "/tracking_plan/")).body).toEqual({ plan: PLAN });
    await captureSome();
    const invalid = await control("GET", "/captured/events/?valid=false");
    expect(invalid.body.results.map((e: { properties: object }) => e.properties)).toEqual([
      expect.objectContaining({ currency: "GBP" }),
      expect.objectContaining({ price: "12" }),
    ]);
  });

  it("that does not compile refuses the whole document with a 400 naming tracking_plan: state and plan stay", async () => {
    await control("PUT", "/tracking_plan/", PLAN);
    const refused = await control("PUT", "/state/", { ...basic(), persons: [], tracking_plan: { events: { e: { type: "no-such-type" } } } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("tracking_plan");
    expect(s.store.persons.list("1").length).toBeGreaterThan(0);
    expect((await control("GET", "/tracking_plan/")).body).toEqual({ plan: PLAN });
  });
});

describe("--tracking-plan FILE and the embedded trackingPlan option", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "plan-"));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it("a plan file judges what the embedded server captures", async () => {
    const server = await startServer({ scenario: "basic", trackingPlan: write("plan.json", JSON.stringify(PLAN)) });
    try {
      expect(server.captured.plan.get()).toEqual(PLAN);
      const res = await fetch(`${server.url}/_mock/tracking_plan/`);
      expect(await res.json()).toEqual({ plan: PLAN });
    } finally {
      await server.close();
    }
  });

  it("a plan object is set as given", async () => {
    const server = await startServer({ scenario: "basic", trackingPlan: { events: {}, additional_events: "deny" } });
    try {
      expect(server.captured.plan.get()).toEqual({ events: {}, additional_events: "deny" });
    } finally {
      await server.close();
    }
  });

  it("a missing, malformed or uncompilable plan stops the start with a StartupError saying why", async () => {
    await expect(startServer({ scenario: "basic", trackingPlan: path.join(dir, "none.json") })).rejects.toThrow(/does not exist/);
    await expect(startServer({ scenario: "basic", trackingPlan: write("bad.json", "{") })).rejects.toThrow(StartupError);
    await expect(startServer({ scenario: "basic", trackingPlan: write("shape.json", '{"events": []}') })).rejects.toThrow(/"events" must be an object/);
    await expect(startServer({ scenario: "basic", trackingPlan: write("schema.json", '{"events": {"x": {"type": "nonsense"}}}') })).rejects.toThrow(/schema of "x"/);
  });
});

describe("a plan's patterns", () => {
  it("run in linear time: a catastrophic pattern against a long property answers at once", async () => {
    await control("PUT", "/tracking_plan/", { events: { typed: { type: "object", properties: { name: { type: "string", pattern: "^(a+)+$" } } } } });
    client.capture({ distinctId: "u1", event: "typed", properties: { name: `${"a".repeat(50_000)}!` } });
    await client.flush();
    const [typed] = (await control("GET", "/captured/events/?valid=false")).body.results;
    expect(typed.errors).toEqual([{ property: "name", message: 'name must match pattern "^(a+)+$"' }]);
  });
});
