import { describe, expect, it } from "vitest";
import { computePaths, type PathEdge } from "../../../src/analyses/paths/index.ts";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import { contextFor, ev, journeys, type JourneyEvent, type World } from "./support.ts";

const paths = (world: World, filter: Record<string, unknown>) => computePaths(world.events, { date_from: "2024-03-01", date_to: "2024-03-03", ...filter }, contextFor(world));
const view = (url: string, at: string) => ev("$pageview", at, { $current_url: url });
const edge = (source: string, target: string, value: number, minutes: number): PathEdge => ({ source, target, value, average_conversion_time: minutes * 60_000 });

/**
 * The example of reference §8.2: actor 1 views / then /pricing 5 min later then /signup 2 min later; actor 2 views
 * / then /pricing 9 min later; actor 3 views /pricing, then / 40 min later (two one-item sessions).
 */
const example = (): World =>
  journeys({
    one: [view("/", "2024-03-01T10:00"), view("/pricing", "2024-03-01T10:05"), view("/signup", "2024-03-01T10:07")],
    two: [view("/", "2024-03-01T11:00"), view("/pricing", "2024-03-01T11:09")],
    three: [view("/pricing", "2024-03-01T12:00"), view("/", "2024-03-01T12:40")],
  });

describe("paths (reference §8)", () => {
  const cases: [string, World, Record<string, unknown>, PathEdge[]][] = [
    ["the reference example", example(), {}, [edge("1_/", "2_/pricing", 2, 7), edge("2_/pricing", "3_/signup", 1, 2)]],
    ["step_limit 2 keeps the first two items", example(), { step_limit: 2 }, [edge("1_/", "2_/pricing", 2, 7)]],
    ["start_point: paths from the first /pricing (trailing / ignored)", example(), { start_point: "/pricing/" }, [edge("1_/pricing", "2_/signup", 1, 2)]],
    ["end_point: paths up to the first /pricing", example(), { end_point: "/pricing" }, [edge("1_/", "2_/pricing", 2, 7)]],
    ["exclude_events drops the items, and their events from the sessions", example(), { exclude_events: ["/pricing"] }, [edge("1_/", "2_/signup", 1, 7)]],
    ["path_groupings: a matching item becomes the pattern", example(), { path_groupings: ["/pri*"] }, [edge("1_/", "2_/pri*", 2, 7), edge("2_/pri*", "3_/signup", 1, 2)]],
    // "/sig*" ends its match in /signup before "gnup" does: the earliest-ending match wins, whatever the list order.
    ["path_groupings: the match that ends first wins", example(), { path_groupings: ["gnup", "/sig*"] }, [edge("1_/", "2_/pricing", 2, 7), edge("2_/pricing", "3_/sig*", 1, 2)]],
    // The hogql type selects no events itself; the expression is every item, a page view's too when $pageview is not included.
    ["hogql items: paths_hogql_expression per event", example(), { include_event_types: ["hogql"], paths_hogql_expression: "concat(properties.$current_url, '!')" }, [edge("1_/!", "2_/pricing!", 2, 7), edge("2_/pricing!", "3_/signup!", 1, 2)]],
    // /pricing and /signup both become /page, so actor 1's two collapse onto the later one (10:07): 7 and 9 minutes.
    ["local_path_cleaning_filters rewrite items before repeats collapse", example(), { local_path_cleaning_filters: [{ regex: "^/(p|s)\\w+", alias: "/page" }] }, [edge("1_/", "2_/page", 2, 8)]],
    ["min_edge_weight drops lighter edges", example(), { min_edge_weight: 2 }, [edge("1_/", "2_/pricing", 2, 7)]],
    ["max_edge_weight drops heavier edges; 2_/pricing stays reachable only through the dropped edge", example(), { max_edge_weight: 1 }, []],
    ["edge_limit cuts after sorting", example(), { edge_limit: 1 }, [edge("1_/", "2_/pricing", 2, 7)]],
    ["a trailing slash goes, except for the root", journeys({ p: [view("/", "2024-03-01T10:00"), view("/a/", "2024-03-01T10:01")] }), {}, [edge("1_/", "2_/a", 1, 1)]],
    ["consecutive repeats collapse onto their last event", journeys({ p: [view("/", "2024-03-01T10:00"), view("/", "2024-03-01T10:03"), view("/a", "2024-03-01T10:05")] }), {}, [edge("1_/", "2_/a", 1, 2)]],
    ["a gap of exactly 30 minutes starts a new session; 29 do not", journeys({
      p: [view("/", "2024-03-01T10:00"), view("/a", "2024-03-01T10:30"), view("/b", "2024-03-01T10:59")],
    }), {}, [edge("1_/a", "2_/b", 1, 29)]],
    ["events outside the date range are not part of paths", journeys({ p: [view("/", "2024-02-29T23:59"), view("/a", "2024-03-01T00:01")] }), {}, []],
    ["without event types every event is an item; $screen is its screen name", journeys({
      p: [ev("$screen", "2024-03-01T10:00", { $screen_name: "Home" }), ev("signup", "2024-03-01T10:01"), view("/done", "2024-03-01T10:02")],
    }), {}, [edge("1_Home", "2_signup", 1, 1), edge("2_signup", "3_/done", 1, 1)]],
    ["custom_event keeps events whose name does not start with $", journeys({
      p: [ev("signup", "2024-03-01T10:00"), view("/x", "2024-03-01T10:01"), ev("purchase", "2024-03-01T10:03")],
    }), { include_event_types: ["custom_event"] }, [edge("1_signup", "2_purchase", 1, 3)]],
    ["the legacy path_type picks one kind", journeys({
      p: [ev("signup", "2024-03-01T10:00"), view("/x", "2024-03-01T10:01"), view("/y", "2024-03-01T10:03")],
    }), { path_type: "$pageview" }, [edge("1_/x", "2_/y", 1, 2)]],
  ];
  it.each(cases)("%s", (_name, world, filter, want) => {
    expect(paths(world, filter)).toEqual(want);
  });

  it("keeps only edges reachable from a 1_ node after the limit", () => {
    // 2_r→3_s is used 3 times, 1_q→2_r twice, 1_p→2_r once: with one edge, 2_r cannot be reached.
    const trip = (n: string, first: string): JourneyEvent[] => [view(first, `2024-03-0${n}T10:00`), view("r", `2024-03-0${n}T10:01`), view("s", `2024-03-0${n}T10:02`)];
    const w = journeys({ a: trip("1", "q"), b: trip("2", "q"), c: trip("3", "p") });
    expect(paths(w, { edge_limit: 2 })).toEqual([edge("2_r", "3_s", 3, 1), edge("1_q", "2_r", 2, 1)]);
    expect(paths(w, { edge_limit: 1 })).toEqual([]);
  });

  it("start and end point together: a long path keeps its first and last halves around '...'", () => {
    const urls = ["/s", "/a", "/b", "/c", "/d", "/e"];
    const w = journeys({ p: urls.map((u, i) => view(u, `2024-03-01T10:0${i}`)) });
    expect(paths(w, { start_point: "/s", end_point: "/e", step_limit: 4 })).toEqual([
      edge("1_/s", "2_/a", 1, 1),
      edge("2_/a", "3_...", 1, 1),
      edge("3_...", "4_/d", 1, 2),
      edge("4_/d", "5_/e", 1, 1),
    ]);
  });

  it.each([
    ["include_event_types", { include_event_types: ["autocapture"] }],
    ["paths_hogql_expression", { include_event_types: ["hogql"], paths_hogql_expression: "event +" }],
    ["funnel_paths", { funnel_paths: "funnel_path_after_step" }],
    ["step_limit", { step_limit: 0 }],
  ])("answers 400 on %s for what it does not model or accept", (attr, filter) => {
    try {
      paths(example(), filter);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AnalysisInputError);
      expect((e as AnalysisInputError).attr).toBe(attr);
    }
  });
});
