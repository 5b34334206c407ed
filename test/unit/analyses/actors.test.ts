import { describe, expect, it } from "vitest";
import { ACTORS_OF, type ActorsKind } from "../../../src/analyses/actors/index.ts";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { contextFor, ev, journeys, worked, type World } from "./support.ts";

const A = 1;
const B = 2;
const C = 3;
const actors = (kind: ActorsKind, world: World, filter: Record<string, unknown>, point: Record<string, unknown>) =>
  ACTORS_OF[kind](world.events, filter, contextFor(world), point).map((row) => (row.value === null ? row.key : [row.key, row.value]));

const pageviews = { events: [{ id: "$pageview", type: "events", order: 0 }] };
const dau = { events: [{ id: "$pageview", type: "events", order: 0, math: "dau" }] };
const shop = { events: ["$pageview", "signup", "purchase"].map((id, order) => ({ id, type: "events", order })), date_from: "2024-03-01", date_to: "2024-03-04", funnel_window_interval: 1 };
const day = (d: string) => ({ date_from: d, date_to: d });

// The §2.8 data (A = person 1, B = 2, C = 3), with the numbers the insights show for each point (see the analysis tests).
describe("actors behind each number (ingestion-persons-events §4.9)", () => {
  const cases: [string, ActorsKind, World, Record<string, unknown>, Record<string, unknown>, unknown[]][] = [
    ["trend dau on 1 March (2): A and C, with their events", "TRENDS", worked(), { ...dau, ...day("2024-03-01") }, { entity_id: "$pageview" }, [[A, 2], [C, 1]]],
    ["trend total on 1 March (3): A with 2 events, C with 1", "TRENDS", worked(), { ...pageviews, ...day("2024-03-01") }, { entity_id: "$pageview" }, [[A, 2], [C, 1]]],
    ["trend breakdown Chrome on 1 March (2 events): A", "TRENDS", worked(), { ...pageviews, ...day("2024-03-01"), breakdown: "$browser" }, { entity_order: 0, breakdown_value: "Chrome" }, [[A, 2]]],
    ["trend of a series given only as entity_id", "TRENDS", worked(), { ...day("2024-03-02") }, { entity_id: "signup", entity_type: "events", entity_math: "dau" }, [[B, 1]]],
    ["weekly_active on 3 March counts the 7 days before (3), with their events there", "TRENDS", worked(), { events: [{ id: "$pageview", math: "weekly_active" }], ...day("2024-03-03") }, {}, [[A, 3], [B, 1], [C, 1]]],
    ["stickiness: on exactly 1 day (2)", "STICKINESS", worked(), { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-03" }, { stickiness_days: 1 }, [B, C]],
    ["stickiness: on exactly 2 days (1)", "STICKINESS", worked(), { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-03" }, { stickiness_days: 2 }, [A]],
    ["lifecycle: dormant on 2 March (−2)", "LIFECYCLE", worked(), { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-04" }, { target_date: "2024-03-02", lifecycle_type: "dormant" }, [A, C]],
    ["lifecycle: new on 2 March (1)", "LIFECYCLE", worked(), { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-04" }, { target_date: "2024-03-02", lifecycle_type: "new" }, [B]],
    ["lifecycle: resurrecting on 3 March (1), target_date with a time", "LIFECYCLE", worked(), { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-04" }, { target_date: "2024-03-03 15:00", lifecycle_type: "resurrecting" }, [A]],
    ["funnel step 2 (2): A and B", "FUNNELS", worked(), shop, { funnel_step: 2 }, [A, B]],
    ["funnel step 3 (1): A", "FUNNELS", worked(), shop, { funnel_step: 3 }, [A]],
    ["funnel dropped before step 3 (2 − 1): B", "FUNNELS", worked(), shop, { funnel_step: -3 }, [B]],
    ["funnel dropped before step 2 (3 − 2): C", "FUNNELS", worked(), shop, { funnel_step: -2 }, [C]],
    ["funnel breakdown value Chrome, step 1", "FUNNELS", worked(), { ...shop, breakdown: "$browser" }, { funnel_step: 1, funnel_step_breakdown: "Chrome" }, [A]],
    ["correlation: signup among converters (2)", "FUNNEL_CORRELATION", worked(), { ...shop, events: shop.events.filter((e) => e.id !== "signup"), funnel_window_interval: 14 }, { funnel_correlation_person_entity: { id: "signup", type: "events" }, funnel_correlation_person_converted: "true" }, [A, B]],
    ["correlation: signup among those who dropped (0)", "FUNNEL_CORRELATION", worked(), { ...shop, events: shop.events.filter((e) => e.id !== "signup"), funnel_window_interval: 14 }, { funnel_correlation_person_entity: JSON.stringify({ id: "signup", type: "events" }), funnel_correlation_person_converted: "FALSE" }, []],
    ["retention cohort 0 (2): A and C", "RETENTION", worked(), { period: "Day", total_intervals: 3, date_to: "2024-03-03" }, { selected_interval: 0 }, [A, C]],
    ["retention cohort 1 (1): B", "RETENTION", worked(), { period: "Day", total_intervals: 3, date_to: "2024-03-03" }, { selected_interval: 1 }, [B]],
  ];
  it.each(cases)("%s", (_name, kind, world, filter, point, want) => {
    expect(actors(kind, world, filter, point)).toEqual(want);
  });
});

describe("actors behind paths: their number of paths sums to the edge's value", () => {
  const view = (url: string, at: string) => ev("$pageview", at, { $current_url: url });
  // Person 1 goes / → /pricing twice (two sessions), person 2 once; person 2 then ends at /pricing, person 1 at /signup once.
  const w = journeys({
    one: [view("/", "2024-03-01T10:00"), view("/pricing", "2024-03-01T10:05"), view("/signup", "2024-03-01T10:07"), view("/", "2024-03-01T14:00"), view("/pricing", "2024-03-01T14:01")],
    two: [view("/", "2024-03-01T11:00"), view("/pricing", "2024-03-01T11:09")],
  });
  const filter = { date_from: "2024-03-01", date_to: "2024-03-01" };
  it.each([
    ["the edge 1_/ → 2_/pricing (value 3)", { path_start_key: "1_/", path_end_key: "2_/pricing" }, [[1, 2], [2, 1]]],
    ["paths ending at 2_/pricing", { path_dropoff_key: "2_/pricing" }, [[1, 1], [2, 1]]],
    ["paths ending at 3_/signup", { path_dropoff_key: "3_/signup" }, [[1, 1]]],
    ["edges leaving 2_/pricing", { path_start_key: "2_/pricing" }, [[1, 1]]],
  ])("%s", (_name, point, want) => {
    expect(actors("PATHS", w, filter, point)).toEqual(want);
  });
});

describe("bad data points are 400s naming the parameter", () => {
  it.each([
    ["STICKINESS", { ...pageviews }, {}, "stickiness_days"],
    ["LIFECYCLE", { ...pageviews }, { lifecycle_type: "new" }, "target_date"],
    ["LIFECYCLE", { ...pageviews }, { target_date: "2024-03-01" }, "lifecycle_type"],
    ["LIFECYCLE", { ...pageviews }, { target_date: "soon", lifecycle_type: "new" }, "target_date"],
    ["FUNNELS", shop, { funnel_step: 4 }, "funnel_step"],
    ["FUNNELS", shop, { funnel_step: -1 }, "funnel_step"],
    ["RETENTION", { total_intervals: 3 }, { selected_interval: 3 }, "selected_interval"],
    ["TRENDS", { events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }] }, {}, "entity_id"],
    ["TRENDS", pageviews, { entity_order: 2 }, "entity_order"],
    ["FUNNEL_CORRELATION", shop, {}, "funnel_correlation_person_entity"],
  ] as [ActorsKind, Record<string, unknown>, Record<string, unknown>, string][])("%s %j %j → %s", (kind, filter, point, attr) => {
    try {
      actors(kind, worked(), filter, point);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AnalysisInputError);
      expect((e as AnalysisInputError).attr).toBe(attr);
    }
  });
});
