import { beforeEach, describe, expect, it, vi } from "vitest";

const parser = vi.hoisted(() => ({ loads: 0 }));
vi.mock("../../../src/hogql/parse.ts", () => ({
  hogqlLoaded: () => false,
  loadHogql: async () => void parser.loads++,
}));

const { hogqlPreloader } = await import("../../../src/http/hogql-preload.ts");
type Store = Parameters<typeof hogqlPreloader>[0];

interface Insight {
  filters: Record<string, unknown>;
  query: Record<string, unknown> | null;
}

/** The two things the preloader reads of the store: its revision and the stored insights. */
function fakeStore(insights: Insight[]) {
  let revision = 0;
  const store = { revision: () => revision, snapshot: () => ({ meta: { insights } }) } as unknown as Store;
  return { store, write: () => void revision++ };
}

const trend = (): Insight => ({ filters: { insight: "TRENDS", events: [{ id: "$pageview" }] }, query: null });
const insightsRequest = { originalUrl: "/api/projects/1/insights/", path: "/api/projects/1/insights/", body: {} };

describe("the HogQL preloader", () => {
  beforeEach(() => void (parser.loads = 0));

  it("leaves the parser unloaded while no request or stored insight mentions HogQL", async () => {
    const { store, write } = fakeStore([trend(), trend()]);
    const preload = hogqlPreloader(store);
    await preload(insightsRequest);
    write();
    await preload(insightsRequest);
    expect(parser.loads).toBe(0);
  });

  it("loads it once a write stores an insight whose filters mention HogQL", async () => {
    const insights = [trend(), trend()];
    const { store, write } = fakeStore(insights);
    const preload = hogqlPreloader(store);
    await preload(insightsRequest);
    insights[1]!.filters = { ...insights[1]!.filters, breakdown: "properties.$browser", breakdown_type: "hogql" };
    write();
    await preload(insightsRequest);
    expect(parser.loads).toBe(1);
  });

  it("loads it for a stored query node that mentions HogQL, and for a request body that does", async () => {
    const { store } = fakeStore([{ filters: {}, query: { kind: "HogQLQuery", query: "select 1" } }]);
    await hogqlPreloader(store)(insightsRequest);
    expect(parser.loads).toBe(1);
    await hogqlPreloader(fakeStore([]).store)({ ...insightsRequest, body: { events: [{ id: "$pageview", math: "hogql", math_hogql: "count()" }] } });
    expect(parser.loads).toBe(2);
  });
});
