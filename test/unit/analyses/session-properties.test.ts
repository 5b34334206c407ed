import { beforeAll, describe, expect, it } from "vitest";
import { deriveSessions, hostOf, pathOf, sessionPropertyReader } from "../../../src/analyses/shared/session-properties.ts";
import { computeTrends } from "../../../src/analyses/trends/index.ts";
import { loadHogql, parseHogqlExpr } from "../../../src/hogql/parse.ts";
import { compileAggregate } from "../../../src/hogql/aggregate.ts";
import { contextFor, ev, journeys, utc, type World } from "./support.ts";

/** Sessions by hand: `s` is the session id, `u` the $current_url. */
const at = (event: string, time: string, s: string | null, u?: string) =>
  ev(event, `2024-03-01T${time}`, { ...(s === null ? {} : { $session_id: s }), ...(u === undefined ? {} : { $current_url: u }) });

const world = (): World =>
  journeys({
    ann: [
      at("$pageview", "10:00:00.900", "s1", "https://a.io/home?x=1#top"),
      at("$autocapture", "10:00:01.100", "s1", "https://a.io/home"),
      at("$pageview", "10:00:09.999", "s2", "https://a.io/pricing"),
    ],
    bob: [at("signup", "11:00:00", "s3"), at("$pageview", "11:00:20", "s3", "https://b.io/"), at("$pageview", "11:00:21", "s3", "https://b.io/docs"), at("$pageview", "12:00:00", null, "https://b.io/")],
    cy: [at("$screen", "13:00:00", "s4"), at("$screen", "13:00:05", "s4")],
  });

const read = (key: string, w = world()) => {
  const reader = sessionPropertyReader(key, () => deriveSessions(w.events))!;
  const bySession = new Map<string, unknown>();
  for (const e of w.events) bySession.set(String(e.properties.$session_id ?? "none"), reader(e));
  return Object.fromEntries(bySession);
};

describe("session properties (sessions_v2 semantics)", () => {
  // "none", the event without a $session_id, reads what the real service's LEFT JOIN to sessions leaves: 0 for the
  // non-nullable numbers (duration, counts), NULL for the nullable columns (URLs, $is_bounce).
  it.each<[string, Record<string, unknown>]>([
    // dateDiff('second'): 10:00:00.900 → 10:00:01.100 crosses one second boundary.
    ["$session_duration", { s1: 1, s2: 0, s3: 21, s4: 5, none: 0 }],
    ["$entry_current_url", { s1: "https://a.io/home?x=1#top", s2: "https://a.io/pricing", s3: null, s4: null, none: null }],
    ["$entry_pathname", { s1: "/home", s2: "/pricing", s3: null, s4: null, none: null }],
    ["$exit_pathname", { s1: "/home", s2: "/pricing", s3: "/docs", s4: null, none: null }],
    ["$exit_hostname", { s1: "a.io", s2: "a.io", s3: "b.io", s4: null, none: null }],
    ["$pageview_count", { s1: 1, s2: 1, s3: 2, s4: 0, none: 0 }],
    ["$autocapture_count", { s1: 1, s2: 0, s3: 0, s4: 0, none: 0 }],
    ["$screen_count", { s1: 0, s2: 0, s3: 0, s4: 2, none: 0 }],
    // s1: an autocapture ⇒ no bounce; s2: one pageview, 0 s ⇒ bounce; s3: two pageviews; s4: no pageview ⇒ null.
    ["$is_bounce", { s1: false, s2: true, s3: false, s4: null, none: null }],
    ["$num_uniq_urls", { s1: 2, s2: 1, s3: 2, s4: 0, none: 0 }],
  ])("%s", (key, want) => {
    expect(read(key)).toEqual(want);
  });

  it("one pageview lasting 10 s or more is not a bounce", () => {
    const w = journeys({ ann: [at("$pageview", "10:00:00", "s", "https://a.io/"), at("$pageleave", "10:00:10", "s", "https://a.io/")] });
    expect(read("$is_bounce", w)).toEqual({ s: false });
  });

  it.each([
    ["https://a.io/p/q?x#y", "/p/q", "a.io"],
    ["https://user@a.io:8080", "", "a.io"],
    ["/relative?x", "/relative", ""],
  ])("path and domain of %s", (url, path, host) => {
    expect([pathOf(url), hostOf(url)]).toEqual([path, host]);
  });

  it("a trend broken down by $entry_pathname counts each event under its session's entry page", () => {
    const w = world();
    const result = computeTrends(w.events, { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-01", breakdown: "$entry_pathname", breakdown_type: "session" }, contextFor(w));
    // /home: s1's pageview; /pricing: s2's; null: s3's two (no entry URL) and the session-less one.
    expect(result.map((r) => [r.breakdown_value, r.data])).toEqual([["/home", [1]], ["/pricing", [1]], ["$$_posthog_breakdown_null_$$", [3]]]);
  });
});

describe("math_hogql aggregates", () => {
  beforeAll(() => loadHogql());
  const rows = [{ amount: 5 }, { amount: "7" }, { amount: null }, { amount: "n/a" }, {}].map((properties, i) => ({
    event: { uuid: `u${i}`, project_id: "1", event: "e", distinct_id: i < 2 ? "a" : "b", timestamp: utc("2024-03-01T00:00"), properties, elements_chain: "" },
    person: undefined,
  }));
  it.each([
    ["count()", 5],
    ["count(properties.amount)", 3],
    ["sum(properties.amount)", 12],
    ["avg(properties.amount)", 6],
    ["min(properties.amount) + max(properties.amount)", 12],
    ["uniq(distinct_id)", 2],
    ["count(distinct properties.amount)", 3],
    ["sum(properties.amount) / count()", 2.4],
    ["sum(properties.missing)", 0],
  ])("%s over the rows is %d", (text, want) => {
    const state = compileAggregate(parseHogqlExpr(text, "m"), "m", { now: 0 }).create();
    rows.forEach((r) => state.add(r));
    expect(state.value()).toBe(want);
  });
});
