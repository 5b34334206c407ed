/**
 * PostHog's paths query-runner tests (posthog/hogql_queries/insights/test/test_paths_query_runner.py and
 * test_paths_query_runner_ee.py), ported: their data, their query, the edges they assert. Tests left out are
 * listed in SKIPPED.md.
 */
import { describe, expect, it } from "vitest";
import { withReference, type Reference, type RefData, type RefEvent, type RefPerson } from "./support.ts";

interface Link {
  source: string;
  target: string;
  value: number;
  average_conversion_time: number;
}

const paths = (pathsFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ kind: "PathsQuery", pathsFilter, ...extra });
const edges = (links: Link[]) => links.map(({ source, target, value }) => ({ source, target, value }));
const persons = (...ids: string[][]): RefPerson[] => ids.map((distinct_ids) => ({ distinct_ids }));

/**
 * Events created without a timestamp (PostHog's `_create_event` then stamps the wall clock): one second apart in
 * the order created, on a day the default range (the last 7 days) holds.
 */
const UNSTAMPED_NOW = "2024-06-10T12:00:00Z";
function unstamped(list: [string, string, Record<string, unknown>?][]): RefEvent[] {
  const start = Date.parse("2024-06-10T10:00:00Z");
  return list.map(([distinct_id, event, properties], i) => ({ distinct_id, event, timestamp: new Date(start + i * 1000).toISOString(), properties: properties ?? {} }));
}
const pv = (distinct_id: string, url: string, extra: Record<string, unknown> = {}): [string, string, Record<string, unknown>] => [distinct_id, "$pageview", { $current_url: url, ...extra }];

describe("paths: PostHog's TestPaths (test_paths_query_runner.py)", () => {
  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_current_url_paths_and_logic
  it("test_current_url_paths_and_logic", async () => {
    const at = (distinct_id: string, url: string, timestamp: string): RefEvent => ({ distinct_id, event: "$pageview", timestamp, properties: { $current_url: url } });
    const data: RefData = {
      now: "2012-01-15T03:21:34Z",
      // PostHog's test team filters out persons whose email contains its users' domain, posthog.com.
      testAccountFilters: [{ key: "email", value: "@posthog.com", operator: "not_icontains", type: "person" }],
      persons: [
        { distinct_ids: ["fake"] },
        { distinct_ids: ["person_1"], properties: { email: "test@posthog.com" } },
        { distinct_ids: ["person_2a", "person_2b"] },
        { distinct_ids: ["person_3"] },
        { distinct_ids: ["person_4"] },
      ],
      events: [
        at("fake", "/", "2012-01-01 03:21:34"),
        at("fake", "/about", "2012-01-01 03:21:34"),
        at("person_1", "/", "2012-01-14 03:21:34"),
        at("person_1", "/about", "2012-01-14 03:28:34"),
        at("person_2a", "/", "2012-01-14 03:21:34"),
        at("person_2b", "/pricing", "2012-01-14 03:28:34"),
        at("person_2a", "/about", "2012-01-14 03:29:34"),
        at("person_3", "/pricing", "2012-01-14 03:21:34"),
        at("person_3", "/", "2012-01-14 03:28:34"),
        at("person_4", "/", "2012-01-14 03:21:34"),
        at("person_4", "/pricing", "2012-01-14 03:28:34"),
      ],
    };
    await withReference(data, async (ref) => {
      const res = await ref.query(paths({}));
      expect(edges(res.results).slice(0, 4)).toEqual([
        { source: "1_/", target: "2_/pricing", value: 2 },
        { source: "1_/", target: "2_/about", value: 1 },
        { source: "1_/pricing", target: "2_/", value: 1 },
        { source: "2_/pricing", target: "3_/about", value: 1 },
      ]);
      const count = async (dateRange: Record<string, string>, extra: Record<string, unknown> = {}) => (await ref.query(paths({}, { dateRange, ...extra }))).results.length;
      expect(await count({ date_from: "2012-01-08" })).toBe(4);
      expect(await count({ date_to: "2012-01-15" })).toBe(4);
      expect(await count({ date_from: "2012-01-22" })).toBe(0);
      expect(await count({ date_to: "2012-01-08" })).toBe(0);
      expect(await count({ date_from: "2012-01-08", date_to: "2012-01-22" })).toBe(4);
      expect(await count({ date_from: "2012-01-08", date_to: "2012-01-22" }, { filterTestAccounts: true })).toBe(3);
      expect(await count({ date_from: "2012-01-22", date_to: "2012-01-08" })).toBe(0);
    });
  });

  /** The custom-event tests' data; `props` on every custom event. */
  const customEvents = (props: Record<string, unknown> = {}): RefData => ({
    now: UNSTAMPED_NOW,
    persons: persons(["person_1"], ["person_2"], ["person_3"], ["person_4"]),
    events: unstamped([
      ["person_1", "custom_event_1", props],
      ["person_1", "custom_event_3", props],
      pv("person_1", "/"),
      ["person_2", "custom_event_1", props],
      ["person_2", "custom_event_2", props],
      ["person_2", "custom_event_3", props],
      ["person_3", "custom_event_2", props],
      ["person_3", "custom_event_1", props],
      ["person_4", "custom_event_1", props],
      ["person_4", "custom_event_2", props],
    ]),
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_custom_event_paths
  it("test_custom_event_paths", async () => {
    await withReference(customEvents(), async (ref) => {
      const res = await ref.query(paths({ includeEventTypes: ["custom_event"] }));
      expect(edges(res.results).slice(0, 4)).toEqual([
        { source: "1_custom_event_1", target: "2_custom_event_2", value: 2 },
        { source: "1_custom_event_1", target: "2_custom_event_3", value: 1 },
        { source: "1_custom_event_2", target: "2_custom_event_1", value: 1 },
        { source: "2_custom_event_2", target: "3_custom_event_3", value: 1 },
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_custom_hogql_paths
  it("test_custom_hogql_paths", async () => {
    await withReference(customEvents({ a: "!" }), async (ref) => {
      const res = await ref.query(paths({ includeEventTypes: ["hogql"], pathsHogQLExpression: "event || properties.a" }));
      expect(edges(res.results).slice(0, 4)).toEqual([
        { source: "1_custom_event_1!", target: "2_custom_event_2!", value: 2 },
        { source: "1_custom_event_1!", target: "2_custom_event_3!", value: 1 },
        { source: "1_custom_event_2!", target: "2_custom_event_1!", value: 1 },
        { source: "2_custom_event_2!", target: "3_custom_event_3!", value: 1 },
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_screen_paths
  it("test_screen_paths", async () => {
    const sc = (distinct_id: string, name: string): [string, string, Record<string, unknown>] => [distinct_id, "$screen", { $screen_name: name }];
    const data: RefData = {
      now: UNSTAMPED_NOW,
      persons: persons(["person_1"], ["person_2a", "person_2b"], ["person_3"], ["person_4"]),
      events: unstamped([
        sc("person_1", "/"), sc("person_1", "/about"),
        sc("person_2b", "/"), sc("person_2a", "/pricing"), sc("person_2b", "/about"),
        sc("person_3", "/pricing"), sc("person_3", "/"),
        sc("person_4", "/"), sc("person_4", "/pricing"),
      ]),
    };
    await withReference(data, async (ref) => {
      const res = await ref.query(paths({ includeEventTypes: ["$screen"] }));
      expect(edges(res.results).slice(0, 4)).toEqual([
        { source: "1_/", target: "2_/pricing", value: 2 },
        { source: "1_/", target: "2_/about", value: 1 },
        { source: "1_/pricing", target: "2_/", value: 1 },
        { source: "2_/pricing", target: "3_/about", value: 1 },
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_paths_properties_filter
  it("test_paths_properties_filter", async () => {
    const chrome = { $browser: "Chrome" };
    const data: RefData = {
      now: UNSTAMPED_NOW,
      persons: persons(["person_1"], ["person_2"], ["person_3"], ["person_4"]),
      events: unstamped([
        pv("person_1", "/", chrome), pv("person_1", "/about", chrome),
        pv("person_2", "/", chrome), pv("person_2", "/pricing", chrome), pv("person_2", "/about", chrome),
        pv("person_3", "/pricing"), pv("person_3", "/"),
        pv("person_4", "/"), pv("person_4", "/pricing"),
      ]),
    };
    await withReference(data, async (ref) => {
      const properties = { type: "AND", values: [{ type: "AND", values: [{ key: "$browser", operator: "exact", type: "event", value: ["Chrome"] }] }] };
      const res = await ref.query(paths({}, { properties }));
      expect(edges(res.results).slice(0, 3)).toEqual([
        { source: "1_/", target: "2_/about", value: 1 },
        { source: "1_/", target: "2_/pricing", value: 1 },
        { source: "2_/pricing", target: "3_/about", value: 1 },
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_paths_start
  it("test_paths_start", async () => {
    const data: RefData = {
      now: UNSTAMPED_NOW,
      persons: persons(["person_1"], ["person_2"], ["person_3"], ["person_4"], ["person_5a", "person_5b"]),
      events: unstamped([
        pv("person_1", "/"), pv("person_1", "/about/"),
        pv("person_2", "/"), pv("person_2", "/pricing/"), pv("person_2", "/about"),
        pv("person_3", "/pricing"), pv("person_3", "/"), pv("person_3", "/about/"),
        pv("person_4", "/"), pv("person_4", "/pricing/"),
        pv("person_5a", "/pricing"), pv("person_5b", "/about"), pv("person_5a", "/pricing/"), pv("person_5b", "/help"),
      ]),
    };
    const FROM_PRICING = [
      { source: "1_/pricing", target: "2_/about", value: 2 },
      { source: "1_/pricing", target: "2_/", value: 1 },
      { source: "2_/", target: "3_/about", value: 1 },
      { source: "2_/about", target: "3_/pricing", value: 1 },
      { source: "3_/pricing", target: "4_/help", value: 1 },
    ];
    await withReference(data, async (ref) => {
      expect(edges((await ref.query(paths({ startPoint: "/pricing" }))).results)).toEqual(FROM_PRICING);
      // Trailing slashes make no difference.
      expect(edges((await ref.query(paths({ startPoint: "/pricing/" }))).results)).toEqual(FROM_PRICING);
      expect(edges((await ref.query(paths({ startPoint: "/" }))).results)).toEqual([
        { source: "1_/", target: "2_/about", value: 2 },
        { source: "1_/", target: "2_/pricing", value: 2 },
        { source: "2_/pricing", target: "3_/about", value: 1 },
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_paths_in_window
  it("test_paths_in_window", async () => {
    const data: RefData = {
      now: "2020-04-20T00:00:00Z",
      persons: persons(["person_1"]),
      events: [
        { distinct_id: "person_1", event: "$pageview", timestamp: "2020-04-14 03:25:34", properties: { $current_url: "/" } },
        { distinct_id: "person_1", event: "$pageview", timestamp: "2020-04-14 03:30:34", properties: { $current_url: "/about" } },
        { distinct_id: "person_1", event: "$pageview", timestamp: "2020-04-15 03:25:34", properties: { $current_url: "/" } },
        { distinct_id: "person_1", event: "$pageview", timestamp: "2020-04-15 03:30:34", properties: { $current_url: "/about" } },
      ],
    };
    await withReference(data, async (ref) => {
      const res = await ref.query(paths({}, { dateRange: { date_from: "2020-04-13" } }));
      expect(edges(res.results)[0]).toEqual({ source: "1_/", target: "2_/about", value: 2 });
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner.py::test_path_replacements_false_skips_team_cleaning
  it("test_path_replacements_false_skips_team_cleaning", async () => {
    // The team's path cleaning rule (/merchant/\d+/dashboard) is not a project setting here; with pathReplacements
    // false PostHog leaves it unapplied, so the merchant ids must show.
    const data: RefData = {
      now: "2012-01-15T03:21:34Z",
      persons: persons(["person_1"]),
      events: [
        { distinct_id: "person_1", event: "$pageview", timestamp: "2012-01-14 03:21:34", properties: { $current_url: "/merchant/123/dashboard" } },
        { distinct_id: "person_1", event: "$pageview", timestamp: "2012-01-14 03:22:34", properties: { $current_url: "/merchant/456/dashboard" } },
      ],
    };
    await withReference(data, async (ref) => {
      const res = await ref.query(paths({ pathReplacements: false }));
      const combined = res.results.map((r: Link) => r.source + r.target).join(" ");
      expect(combined.includes("123") || combined.includes("456")).toBe(true);
    });
  });
});

/** PostHog's `_get_people_at_path`: the persons (their first distinct id here) an actors query finds at a point. */
async function peopleAtPath(ref: Reference, query: Record<string, unknown>, start?: string, end?: string, dropoff?: string): Promise<string[]> {
  // As PostHog's helper: a query with pathsFilter is split into it and the rest; without, it is the paths filter.
  const { pathsFilter, ...rest } = "pathsFilter" in query ? (query as { pathsFilter: Record<string, unknown> }) : { pathsFilter: query };
  const source = { kind: "PathsQuery", ...rest, pathsFilter: { ...pathsFilter, pathStartKey: start ?? null, pathEndKey: end ?? null, pathDropoffKey: dropoff ?? null } };
  const res = await ref.query({ kind: "ActorsQuery", select: ["person"], orderBy: ["id"], source: { kind: "InsightActorsQuery", source } });
  return res.results.map((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids[0]);
}

const MIN = 60_000;
const link = (source: string, target: string, value: number, average_conversion_time: number): Link => ({ source, target, value, average_conversion_time });
const ev = (distinct_id: string, event: string, timestamp: string, properties: Record<string, unknown> = {}): RefEvent => ({ distinct_id, event, timestamp, properties });
const pageAt = (distinct_id: string, url: string, timestamp: string): RefEvent => ev(distinct_id, "$pageview", timestamp, { $current_url: url });
const screenAt = (distinct_id: string, name: string, timestamp: string): RefEvent => ev(distinct_id, "$screen", timestamp, { $screen_name: name });

/** The ee tests' `_create_groups`: organizations org:5 (finance) and org:6 (technology), companies company:1 (technology) and company:2. */
const GROUPS: Pick<RefData, "groupTypes" | "extra"> = {
  groupTypes: [{ group_type_index: 0, group_type: "organization" }, { group_type_index: 1, group_type: "company" }],
  extra: {
    groups: [
      { project_id: "1", group_type_index: 0, group_key: "org:5", properties: { industry: "finance" } },
      { project_id: "1", group_type_index: 0, group_key: "org:6", properties: { industry: "technology" } },
      { project_id: "1", group_type_index: 1, group_key: "company:1", properties: { industry: "technology" } },
      { project_id: "1", group_type_index: 1, group_key: "company:2", properties: {} },
    ],
  },
};

describe("paths: PostHog's BaseTestClickhousePaths (test_paths_query_runner_ee.py)", () => {
  const fourPages = (): RefEvent[] => [
    pageAt("fake", "/1", "2012-01-01 03:21:34"),
    pageAt("fake", "/2", "2012-01-01 03:22:34"),
    pageAt("fake", "/3", "2012-01-01 03:24:34"),
    pageAt("fake", "/4", "2012-01-01 03:27:34"),
  ];

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_step_limit
  it("test_step_limit", async () => {
    await withReference({ now: "2012-01-07T03:21:34Z", persons: persons(["fake"]), events: fourPages() }, async (ref) => {
      let filter: Record<string, unknown> = { stepLimit: 2 };
      expect((await ref.query(paths(filter))).results).toEqual([link("1_/1", "2_/2", 1, MIN)]);
      expect(await peopleAtPath(ref, filter, "1_/1", "2_/2")).toEqual(["fake"]);
      expect(await peopleAtPath(ref, filter, "2_/2", "3_/3")).toEqual([]);
      filter = { stepLimit: 3 };
      expect((await ref.query(paths(filter))).results).toEqual([link("1_/1", "2_/2", 1, MIN), link("2_/2", "3_/3", 1, 2 * MIN)]);
      expect(await peopleAtPath(ref, filter, "2_/2", "3_/3")).toEqual(["fake"]);
      filter = { stepLimit: 4 };
      expect((await ref.query(paths(filter))).results).toEqual([link("1_/1", "2_/2", 1, MIN), link("2_/2", "3_/3", 1, 2 * MIN), link("3_/3", "4_/4", 1, 3 * MIN)]);
      expect(await peopleAtPath(ref, filter, "1_/1", "2_/2")).toEqual(["fake"]);
      expect(await peopleAtPath(ref, filter, "2_/2", "3_/3")).toEqual(["fake"]);
      expect(await peopleAtPath(ref, filter, "3_/3", "4_/4")).toEqual(["fake"]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_step_conversion_times
  it("test_step_conversion_times", async () => {
    const events = [
      ...fourPages(),
      pageAt("fake2", "/1", "2012-01-01 03:21:34"),
      pageAt("fake2", "/2", "2012-01-01 03:23:34"),
      pageAt("fake2", "/3", "2012-01-01 03:27:34"),
    ];
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["fake"], ["fake2"]), events }, async (ref) => {
      const res = await ref.query(paths({ stepLimit: 4, includeEventTypes: ["$pageview"] }, { dateRange: { date_from: "2012-01-01" } }));
      expect(res.results).toEqual([link("1_/1", "2_/2", 2, 1.5 * MIN), link("2_/2", "3_/3", 2, 3 * MIN), link("3_/3", "4_/4", 1, 3 * MIN)]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_event_ordering
  it("test_event_ordering", async () => {
    const people: RefPerson[] = [];
    const events: RefEvent[] = [];
    for (let i = 0; i < 50; i++) {
      const id = `user_${i}`;
      people.push({ distinct_ids: [id] });
      events.push(ev(id, "step one", "2021-05-01 00:00:00"), ev(id, "step two", "2021-05-01 00:01:00"), ev(id, "step three", "2021-05-01 00:02:00"));
      if (i % 2 === 0) events.push(ev(id, "step branch", "2021-05-01 00:03:00"));
    }
    await withReference({ now: "2021-05-10T00:00:00Z", persons: people, events }, async (ref) => {
      const res = await ref.query(paths({ includeEventTypes: ["custom_event"] }, { dateRange: { date_from: "2021-05-01", date_to: "2021-05-03" } }));
      expect(res.results).toEqual([link("1_step one", "2_step two", 50, 60000), link("2_step two", "3_step three", 50, 60000), link("3_step three", "4_step branch", 25, 60000)]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_end
  it("test_end", async () => {
    const events = [
      ...["/1", "/2", "/3/", "/4/", "/5", "/about", "/after/"].map((url, i) => pageAt("person_1", url, `2021-05-01 00:0${i + 1}:00`)),
      pageAt("person_2", "/5", "2021-05-01 00:01:00"),
      pageAt("person_2", "/about", "2021-05-01 00:02:00"),
      ...["/3/", "/4", "/about/", "/after"].map((url, i) => pageAt("person_3", url, `2021-05-01 00:0${i + 1}:00`)),
    ];
    const want = [
      link("1_/2", "2_/3", 1, 60000),
      link("1_/3", "2_/4", 1, 60000),
      link("1_/5", "2_/about", 1, 60000),
      link("2_/3", "3_/4", 1, 60000),
      link("2_/4", "3_/about", 1, 60000),
      link("3_/4", "4_/5", 1, 60000),
      link("4_/5", "5_/about", 1, 60000),
    ];
    await withReference({ now: "2021-05-10T00:00:00Z", persons: persons(["person_1"], ["person_2"], ["person_3"]), events }, async (ref) => {
      const dateRange = { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00" };
      expect((await ref.query(paths({ endPoint: "/about" }, { dateRange }))).results).toEqual(want);
      // Trailing slashes do not change the results.
      expect((await ref.query(paths({ endPoint: "/about/" }, { dateRange }))).results).toEqual(want);
    });
  });

  /** test_event_inclusion_exclusion_filters' data: p1 page views, p2 screens, p3 custom events. */
  const threeKinds = (): RefEvent[] => [
    pageAt("p1", "/1", "2012-01-01 03:21:34"), pageAt("p1", "/2/", "2012-01-01 03:22:34"), pageAt("p1", "/3", "2012-01-01 03:24:34"),
    screenAt("p2", "/screen1", "2012-01-01 03:21:34"), screenAt("p2", "/screen2", "2012-01-01 03:22:34"), screenAt("p2", "/screen3", "2012-01-01 03:24:34"),
    ev("p3", "/custom1", "2012-01-01 03:21:34"), ev("p3", "/custom2", "2012-01-01 03:22:34"), ev("p3", "/custom3", "2012-01-01 03:24:34"),
  ];

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_event_inclusion_exclusion_filters
  it("test_event_inclusion_exclusion_filters", async () => {
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["p1"], ["p2"], ["p3"]), events: threeKinds() }, async (ref) => {
      const run = async (pathsFilter: Record<string, unknown>) => (await ref.query(paths({ stepLimit: 4, ...pathsFilter }, { dateRange: { date_from: "2012-01-01" } }))).results;
      expect(await run({ includeEventTypes: ["$pageview"] })).toEqual([link("1_/1", "2_/2", 1, MIN), link("2_/2", "3_/3", 1, 2 * MIN)]);
      expect(await run({ includeEventTypes: ["$screen"] })).toEqual([link("1_/screen1", "2_/screen2", 1, MIN), link("2_/screen2", "3_/screen3", 1, 2 * MIN)]);
      expect(await run({ includeEventTypes: ["custom_event"] })).toEqual([link("1_/custom1", "2_/custom2", 1, MIN), link("2_/custom2", "3_/custom3", 1, 2 * MIN)]);
      expect(await run({ includeEventTypes: ["$pageview", "$screen", "custom_event"], excludeEvents: ["/custom1", "/1", "/2", "/3"] })).toEqual([
        link("1_/custom2", "2_/custom3", 1, 2 * MIN),
        link("1_/screen1", "2_/screen2", 1, MIN),
        link("2_/screen2", "3_/screen3", 1, 2 * MIN),
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_event_inclusion_exclusion_filters_across_single_person
  it("test_event_inclusion_exclusion_filters_across_single_person", async () => {
    const events = [
      pageAt("p1", "/1", "2012-01-01 03:21:34"), pageAt("p1", "/2", "2012-01-01 03:22:34"), pageAt("p1", "/3", "2012-01-01 03:24:34"),
      screenAt("p1", "/screen1", "2012-01-01 03:25:34"), screenAt("p1", "/screen2", "2012-01-01 03:26:34"), screenAt("p1", "/screen3", "2012-01-01 03:28:34"),
      ev("p1", "/custom1", "2012-01-01 03:29:34"), ev("p1", "/custom2", "2012-01-01 03:30:34"), ev("p1", "/custom3", "2012-01-01 03:32:34"),
    ];
    // Unfrozen in PostHog (now is the wall clock); the range is given from 2012-01-01 on.
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["p1"]), events }, async (ref) => {
      const run = async (pathsFilter: Record<string, unknown>) => (await ref.query(paths({ stepLimit: 10, ...pathsFilter }, { dateRange: { date_from: "2012-01-01" } }))).results;
      const pagesAndScreens = [
        link("1_/1", "2_/2", 1, MIN),
        link("2_/2", "3_/3", 1, 2 * MIN),
        link("3_/3", "4_/screen1", 1, MIN),
        link("4_/screen1", "5_/screen2", 1, MIN),
        link("5_/screen2", "6_/screen3", 1, 2 * MIN),
      ];
      expect(await run({})).toEqual([...pagesAndScreens, link("6_/screen3", "7_/custom1", 1, MIN), link("7_/custom1", "8_/custom2", 1, MIN), link("8_/custom2", "9_/custom3", 1, 2 * MIN)]);
      expect(await run({ includeEventTypes: ["$pageview", "$screen"] })).toEqual(pagesAndScreens);
      expect(await run({ includeEventTypes: ["$pageview", "custom_event"], excludeEvents: ["/custom1", "/custom3"] })).toEqual([
        link("1_/1", "2_/2", 1, MIN),
        link("2_/2", "3_/3", 1, 2 * MIN),
        link("3_/3", "4_/custom2", 1, 6 * MIN),
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_respect_session_limits
  it("test_respect_session_limits", async () => {
    const events = [
      pageAt("fake", "/1", "2012-01-01 03:21:34"), pageAt("fake", "/2", "2012-01-01 03:22:34"), pageAt("fake", "/3", "2012-01-01 03:24:34"),
      pageAt("fake", "/1", "2012-01-02 03:21:54"), pageAt("fake", "/2/", "2012-01-02 03:22:54"), pageAt("fake", "/3", "2012-01-02 03:26:54"),
    ];
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["fake"]), events }, async (ref) => {
      const res = await ref.query(paths({}, { dateRange: { date_from: "2012-01-01" } }));
      expect(res.results).toEqual([link("1_/1", "2_/2", 2, MIN), link("2_/2", "3_/3", 2, 3 * MIN)]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_removes_duplicates
  it("test_removes_duplicates", async () => {
    const events = [
      pageAt("fake", "/1", "2012-01-01 03:21:34"), pageAt("fake", "/1", "2012-01-01 03:21:54"), pageAt("fake", "/2", "2012-01-01 03:22:34"),
      pageAt("fake", "/2/", "2012-01-01 03:22:54"), pageAt("fake", "/3", "2012-01-01 03:24:54"),
      pageAt("fake2", "/1", "2012-01-01 03:21:34"), pageAt("fake2", "/2/", "2012-01-01 03:23:34"), pageAt("fake2", "/3", "2012-01-01 03:27:34"),
    ];
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["fake"], ["fake2"]), events }, async (ref) => {
      const res = await ref.query(paths({}, { dateRange: { date_from: "2012-01-01" } }));
      expect(res.results).toEqual([link("1_/1", "2_/2", 2, 1.5 * MIN), link("2_/2", "3_/3", 2, 3 * MIN)]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_start_and_end
  it("test_start_and_end", async () => {
    const events = [
      ...["/1", "/2", "/3", "/4", "/5", "/about", "/after"].map((url, i) => pageAt("person_1", url, `2021-05-01 00:0${i + 1}:00`)),
      pageAt("person_2", "/5", "2021-05-01 00:01:00"), pageAt("person_2", "/about", "2021-05-01 00:02:00"),
      ...["/3", "/4", "/about", "/after"].map((url, i) => pageAt("person_3", url, `2021-05-01 00:0${i + 1}:00`)),
    ];
    await withReference({ now: "2021-05-10T00:00:00Z", persons: persons(["person_1"], ["person_2"], ["person_3"]), events }, async (ref) => {
      const dateRange = { date_from: "2012-05-01 00:00:00", date_to: "2021-05-07 00:00:00" };
      let query = { dateRange, pathsFilter: { includeEventTypes: ["$pageview"], startPoint: "/5", endPoint: "/about" } as Record<string, unknown> };
      expect((await ref.query({ kind: "PathsQuery", ...query })).results).toEqual([link("1_/5", "2_/about", 2, 60000)]);
      expect((await peopleAtPath(ref, query, "1_/5", "2_/about")).sort()).toEqual(["person_1", "person_2"]);
      // Aggregation of long paths.
      query = { dateRange, pathsFilter: { ...query.pathsFilter, startPoint: "/2", stepLimit: 4 } };
      expect((await ref.query({ kind: "PathsQuery", ...query })).results).toEqual([
        link("1_/2", "2_/3", 1, MIN),
        link("2_/3", "3_...", 1, MIN),
        link("3_...", "4_/5", 1, MIN),
        link("4_/5", "5_/about", 1, MIN),
      ]);
      expect(await peopleAtPath(ref, query, "3_...", "4_/5")).toEqual(["person_1"]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_wildcard_groups_across_people
  it("test_wildcard_groups_across_people", async () => {
    const events = [
      pageAt("p1", "/1", "2012-01-01 03:21:34"), pageAt("p1", "/2/bar/1/foo", "2012-01-01 03:22:34"), pageAt("p1", "/3", "2012-01-01 03:24:34"),
      pageAt("p2", "/1", "2012-01-01 03:21:34"), pageAt("p2", "/bar/2/foo", "2012-01-01 03:22:34"), pageAt("p2", "/3", "2012-01-01 03:24:34"),
      pageAt("p3", "/1", "2012-01-01 03:21:34"), pageAt("p3", "/bar/33/foo", "2012-01-01 03:22:34"), pageAt("p3", "/3", "2012-01-01 03:24:34"),
    ];
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["p1"], ["p2"], ["p3"]), events }, async (ref) => {
      const res = await ref.query(paths({ stepLimit: 4, includeEventTypes: ["$pageview"], pathGroupings: ["/bar/*/foo"] }, { dateRange: { date_from: "2012-01-01" } }));
      expect(res.results).toEqual([link("1_/1", "2_/bar/*/foo", 3, MIN), link("2_/bar/*/foo", "3_/3", 3, 2 * MIN)]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_wildcard_groups_evil_input
  it("test_wildcard_groups_evil_input", async () => {
    const evil = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!";
    const events = [
      pageAt("p1", evil, "2012-01-01 03:21:34"), pageAt("p1", "/2/bar/aaa", "2012-01-01 03:22:34"), pageAt("p1", "/3", "2012-01-01 03:24:34"),
      pageAt("p2", "/1", "2012-01-01 03:21:34"), pageAt("p2", "/2/3?q=1", "2012-01-01 03:22:34"), pageAt("p2", "/3?q=1", "2012-01-01 03:24:34"),
    ];
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["p1"], ["p2"]), events }, async (ref) => {
      const pathGroupings = ["(a+)+", "[aaa|aaaa]+", "1.*", ".*", "/3?q=1", "/3*"];
      const res = await ref.query(paths({ includeEventTypes: ["$pageview"], pathGroupings }, { dateRange: { date_from: "2012-01-01" } }));
      expect(res.results).toEqual([link("1_/1", "2_/3*", 1, 3 * MIN), link(`1_${evil}`, "2_/2/bar/aaa", 1, MIN), link("2_/2/bar/aaa", "3_/3*", 1, 2 * MIN)]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_person_dropoffs
  it("test_person_dropoffs", async () => {
    const people: RefPerson[] = [];
    const events: RefEvent[] = [];
    const steps: [string, string][] = [["step one", "00:00:00"], ["step two", "00:04:00"], ["step three", "00:05:00"], ["step four", "00:06:00"]];
    for (let i = 0; i < 35; i++) {
      const id = `user_${i}`;
      people.push({ distinct_ids: [id] });
      const n = i < 5 ? 2 : i < 15 ? 3 : 4;
      for (const [event, time] of steps.slice(0, n)) events.push(ev(id, event, `2021-05-01 ${time}`));
    }
    await withReference({ now: "2021-05-10T00:00:00Z", persons: people, events }, async (ref) => {
      const filter = { pathsFilter: { includeEventTypes: ["custom_event"] }, dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00" } };
      const count = async (start?: string, end?: string, dropoff?: string) => (await peopleAtPath(ref, filter, start, end, dropoff)).length;
      expect(await count(undefined, undefined, "2_step two")).toBe(5);
      expect(await count(undefined, "2_step two")).toBe(35);
      expect(await count("2_step two")).toBe(30);
      expect(await count(undefined, undefined, "3_step three")).toBe(10);
      expect(await count(undefined, "3_step three")).toBe(30);
      expect(await count("3_step three")).toBe(20);
      expect(await count(undefined, undefined, "4_step four")).toBe(20);
      expect(await count(undefined, "4_step four")).toBe(20);
      expect(await count("4_step four")).toBe(0);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_start_dropping_orphaned_edges
  it("test_start_dropping_orphaned_edges", async () => {
    const people: RefPerson[] = [];
    const events: RefEvent[] = [];
    for (let i = 0; i < 5; i++) {
      people.push({ distinct_ids: [`person_${i}`] });
      ["/1", "/2", "/3", "/4", "/5", "/about", "/after"].forEach((url, k) => events.push(pageAt(`person_${i}`, url, `2021-05-01 00:0${k + 1}:00`)));
    }
    for (const [id, middle] of [["person_r_2", "/a"], ["person_r_3", "/b"]] as const) {
      people.push({ distinct_ids: [id] });
      events.push(pageAt(id, "/2", "2021-05-01 00:01:00"), pageAt(id, middle, "2021-05-01 00:01:30"), pageAt(id, "/x", "2021-05-01 00:02:00"), pageAt(id, "/about", "2021-05-01 00:03:00"));
    }
    await withReference({ now: "2021-05-10T00:00:00Z", persons: people, events }, async (ref) => {
      const res = await ref.query(paths({ startPoint: "/2", edgeLimit: 6 }, { dateRange: { date_from: "2021-05-01 00:00:00", date_to: "2021-05-07 00:00:00" } }));
      // 3_/x → 4_/about (value 2) is cut loose by the edge limit and dropped as dangling.
      expect(res.results).toEqual([
        link("1_/2", "2_/3", 5, 60000),
        link("2_/3", "3_/4", 5, 60000),
        link("3_/4", "4_/5", 5, 60000),
        link("4_/5", "5_/about", 5, 60000),
        link("1_/2", "2_/a", 1, 30000),
      ]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_groups_filtering
  it("test_groups_filtering", async () => {
    const events = [
      pageAt("p1", "/1", "2012-01-01 03:21:34"), pageAt("p1", "/2/", "2012-01-01 03:22:34"), pageAt("p1", "/3", "2012-01-01 03:24:34"),
      screenAt("p2", "/screen1", "2012-01-01 03:21:34"), screenAt("p2", "/screen2", "2012-01-01 03:22:34"), screenAt("p2", "/screen3", "2012-01-01 03:24:34"),
      ev("p3", "/custom1", "2012-01-01 03:21:34", { $group_1: "company:1" }), ev("p3", "/custom2", "2012-01-01 03:22:34", { $group_1: "company:1" }), ev("p3", "/custom3", "2012-01-01 03:24:34", { $group_1: "company:1" }),
    ];
    for (const e of events.slice(0, 3)) e.properties = { ...e.properties, $group_0: "org:5" };
    for (const e of events.slice(3, 6)) e.properties = { ...e.properties, $group_0: "org:6" };
    const data: RefData = { now: "2023-05-23T11:00:00Z", persons: persons(["p1"], ["p2"], ["p3"]), events, ...GROUPS };
    await withReference(data, async (ref) => {
      const run = async (groupTypeIndex: number, industry: string) => {
        const properties = { type: "AND", values: [{ type: "AND", values: [{ group_type_index: groupTypeIndex, key: "industry", operator: "exact", type: "group", value: [industry] }] }] };
        const node = paths({ includeEventTypes: ["$pageview", "$screen", "custom_event"], stepLimit: 4 }, { dateRange: { date_from: "2012-01-01", date_to: "2012-02-01" }, properties });
        return (await ref.query(node)).results;
      };
      expect(await run(0, "finance")).toEqual([link("1_/1", "2_/2", 1, MIN), link("2_/2", "3_/3", 1, 2 * MIN)]);
      expect(await run(0, "technology")).toEqual([link("1_/screen1", "2_/screen2", 1, MIN), link("2_/screen2", "3_/screen3", 1, 2 * MIN)]);
      expect(await run(1, "technology")).toEqual([link("1_/custom1", "2_/custom2", 1, MIN), link("2_/custom2", "3_/custom3", 1, 2 * MIN)]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_recording_with_no_window_or_session_id
  it("test_recording_with_no_window_or_session_id", async () => {
    const events = [pageAt("p1", "/1", "2012-01-01 03:21:34"), pageAt("p1", "/2", "2012-01-01 03:22:34")];
    await withReference({ now: "2012-01-01T03:21:34Z", persons: persons(["p1"]), events }, async (ref) => {
      const source = { kind: "PathsQuery", dateRange: { date_from: "2012-01-01 00:00:00", date_to: "2012-01-02 00:00:00" }, pathsFilter: { includeEventTypes: ["$pageview"], pathEndKey: "2_/2" } };
      const res = await ref.query({ kind: "ActorsQuery", orderBy: ["id"], select: ["person", "created_at", "event_count", "matched_recordings"], source: { kind: "InsightActorsQuery", source } });
      expect(res.results.map((row: [{ distinct_ids: string[] }]) => row[0].distinct_ids)).toEqual([["p1"]]);
      expect(res.results.map((row: unknown[]) => row[3])).toEqual([[]]);
    });
  });

  // posthog/hogql_queries/insights/test/test_paths_query_runner_ee.py::test_event_exclusion_filters_with_wildcard_groups
  it("test_event_exclusion_filters_with_wildcard_groups", async () => {
    const events = [
      pageAt("p1", "/1", "2012-01-01 03:21:34"), pageAt("p1", "/2/bar/1/foo", "2012-01-01 03:22:34"), pageAt("p1", "/3", "2012-01-01 03:24:34"),
      pageAt("p2", "/1", "2012-01-01 03:21:34"), pageAt("p2", "/bar/2/foo", "2012-01-01 03:22:34"), pageAt("p2", "/3", "2012-01-01 03:24:34"),
      pageAt("p3", "/1", "2012-01-01 03:21:34"), pageAt("p3", "/bar/33/foo", "2012-01-01 03:22:34"), pageAt("p3", "/3", "2012-01-01 03:24:34"),
    ];
    await withReference({ now: "2023-05-23T11:00:00Z", persons: persons(["p1"], ["p2"], ["p3"]), events }, async (ref) => {
      const run = async (pathsFilter: Record<string, unknown>) => (await ref.query(paths({ stepLimit: 4, includeEventTypes: ["$pageview"], ...pathsFilter }, { dateRange: { date_from: "2012-01-01" } }))).results;
      expect(await run({ excludeEvents: ["/bar/*/foo"], pathGroupings: ["/bar/*/foo"] })).toEqual([link("1_/1", "2_/3", 3, 3 * MIN)]);
      expect(await run({ excludeEvents: ["/bar/*/foo"], pathGroupings: ["/xxx/invalid/*"] })).toHaveLength(6);
    });
  });
});
