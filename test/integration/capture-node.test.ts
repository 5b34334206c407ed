import { PostHog } from "posthog-node";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * The real posthog-node client (default transport: gzip to /batch/) against the server, read back through the
 * project API. The basic scenario's clock is frozen at 2024-03-05T12:00Z; events land relative to it.
 */
let s: TestServer;
let client: PostHog;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
  client = new PostHog(s.store.projects.get("1")!.api_token, { host: s.base, flushAt: 100, flushInterval: 0, fetchRetryCount: 0 });
});
afterEach(async () => {
  await client.shutdown();
  await s.close();
});

const P = "/api/projects/1";
const today = { date_from: "2024-03-05", date_to: "2024-03-05" };
const personOf = async (distinctId: string) => (await s.get(`${P}/persons/?distinct_id=${encodeURIComponent(distinctId)}`)).body.results as any[];
/** posthog-node stamps events with the wall clock; a few ms apart is enough to keep their order. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("posthog-node", () => {
  it("capture, identify with $anon_distinct_id, alias and $set_once twice arrive merged; a funnel spans the ids", async () => {
    client.capture({ distinctId: "anon-42", event: "viewed pricing", properties: { plan: "pro" } });
    await tick();
    client.identify({ distinctId: "user-42", properties: { $set: { email: "u42@x.io" }, $set_once: { signup_source: "ads" }, $anon_distinct_id: "anon-42" } });
    await tick();
    client.capture({ distinctId: "user-42", event: "subscribed", properties: { $set_once: { signup_source: "organic" } } });
    await tick();
    client.alias({ distinctId: "user-42", alias: "backend-42" });
    await tick();
    await client.shutdown();

    const events = (await s.get(`${P}/events/?limit=100`)).body.results.filter((e: any) => ["viewed pricing", "$identify", "subscribed", "$create_alias"].includes(e.event));
    expect(events.map((e: any) => e.event).reverse()).toEqual(["viewed pricing", "$identify", "subscribed", "$create_alias"]);
    expect(events.every((e: any) => e.timestamp.startsWith("2024-03-05T1"))).toBe(true);
    expect(events.find((e: any) => e.event === "viewed pricing").properties).toMatchObject({ plan: "pro", $lib: "posthog-node" });

    const [person] = await personOf("anon-42");
    expect(person).toMatchObject({ is_identified: true, properties: { email: "u42@x.io", signup_source: "ads" } });
    expect([...person.distinct_ids].sort()).toEqual(["anon-42", "backend-42", "user-42"]);
    expect((await personOf("backend-42"))[0].id).toBe(person.id);

    const funnel = { events: [{ id: "viewed pricing", order: 0 }, { id: "subscribed", order: 1 }], ...today };
    const steps = (await s.post(`${P}/insights/funnel/`, funnel)).body.result;
    expect(steps.map((st: any) => st.count)).toEqual([1, 1]);
  });

  it("groupIdentify and captures with groups feed group aggregation", async () => {
    client.groupIdentify({ groupType: "company", groupKey: "acme", properties: { name: "Acme" } });
    client.capture({ distinctId: "a", event: "report run", groups: { company: "acme" } });
    client.capture({ distinctId: "b", event: "report run", groups: { company: "acme" } });
    client.capture({ distinctId: "c", event: "report run", groups: { company: "initech" } });
    await client.shutdown();

    const index = s.store.groups.indexOf("1", "company");
    expect(index).toBe(0);
    expect(s.store.groups.get("1", 0, "acme")?.properties).toMatchObject({ name: "Acme" });
    const trend = { events: [{ id: "report run", math: "unique_group", math_group_type_index: index }], ...today };
    expect((await s.post(`${P}/insights/trend/`, trend)).body.result[0].count).toBe(2);
    const total = { events: [{ id: "report run", math: "total" }], ...today };
    expect((await s.post(`${P}/insights/trend/`, total)).body.result[0].count).toBe(3);
  });

  it("a wrong token stores nothing", async () => {
    const stranger = new PostHog("phc_not_a_project", { host: s.base, flushAt: 1, flushInterval: 0, fetchRetryCount: 0 });
    const errors: unknown[] = [];
    stranger.on("error", (e) => errors.push(e));
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    stranger.capture({ distinctId: "z", event: "lost" });
    await stranger.shutdown();
    logged.mockRestore();
    expect(errors.length).toBeGreaterThan(0);
    expect((await s.get(`${P}/events/?event=lost`)).body.results).toEqual([]);
  });
});
