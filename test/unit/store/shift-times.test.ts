import { EventStore } from "../../../src/store/event-store.ts";
import { describe, expect, it } from "vitest";
import { describeOffset, offsetToNow, shiftState } from "../../../src/store/shift-times.ts";
import type { State } from "../../../src/store/schema.ts";

const DAY = 86_400_000;

function state(): State {
  return {
    meta: {
      schema_version: 1,
      counters: { insight: 1, person: 1, dashboard: 0, dashboard_tile: 0 },
      users: [],
      projects: [],
      actions: [],
      cohorts: [],
      feature_flags: [],
      flag_hash_key_overrides: [],
      dashboards: [],
      dashboard_tiles: [],
      insights: [
        {
          id: 1, project_id: "1", short_id: "s", name: "n", derived_name: null, description: "", filters: { date_from: "2024-01-01" }, query: null, order: null,
          deleted: false, tags: [], favorited: false, saved: true, is_sample: false, created_by: 1,
          created_at: "2024-01-01T00:00:00.000Z", updated_at: "2024-01-02T00:00:00.000Z", last_modified_at: "2024-01-03T00:00:00.000Z", last_modified_by: 1,
        },
      ],
      insight_views: [{ project_id: "1", user_id: 1, insight_id: 1, viewed_at: "2024-01-04T00:00:00.000Z" }],
      pending_deletions: [{ project_id: "1", person_uuid: "u", distinct_ids: ["a"], requested_at: "2024-01-05T00:00:00.000Z", run_at: "2024-01-07T05:00:00.000Z" }],
      group_types: [],
      groups: [{ project_id: "1", group_type_index: 0, group_key: "acme", properties: {}, created_at: "2024-01-01T06:00:00.000Z" }],
      annotations: [
        {
          id: 1, project_id: "1", content: "launch", date_marker: "2024-01-08T00:00:00.000Z", creation_type: "USR", dashboard_item: null, dashboard_id: null,
          scope: "project", deleted: false, created_by: 1, created_at: "2024-01-09T00:00:00.000Z", updated_at: "2024-01-09T06:00:00.000Z",
        },
      ],
    },
    persons: [{ id: 1, project_id: "1", uuid: "u", distinct_ids: ["a"], properties: {}, created_at: "2024-01-01T12:00:00.000Z", is_identified: true }],
    events: EventStore.from([
      { uuid: "e1", project_id: "1", event: "x", distinct_id: "a", timestamp: Date.parse("2024-01-01T12:00:00Z"), properties: {}, elements_chain: "" },
      { uuid: "e2", project_id: "1", event: "x", distinct_id: "a", timestamp: Date.parse("2024-01-10T12:00:00Z"), properties: {}, elements_chain: "" },
    ]),
    activity: [{ id: "a1", project_id: "1", scope: "Insight", item_id: "1", activity: "created", user_id: 1, detail: { name: null, short_id: null, changes: null, trigger: null, type: null }, created_at: "2024-01-01T00:00:00.000Z" }],
  };
}

describe("shifting a stored state to now", () => {
  it("the offset moves the newest event onto now; no events, no offset", () => {
    expect(offsetToNow(state(), Date.parse("2024-01-24T12:00:00Z"))).toBe(14 * DAY);
    expect(offsetToNow({ ...state(), events: new EventStore() }, Date.parse("2024-01-24T12:00:00Z"))).toBe(0);
  });

  it("moves every recorded instant by the offset and leaves filters and the deletion schedule alone", () => {
    const s = state();
    shiftState(s, 14 * DAY);
    expect([...s.events].map((e) => new Date(e.timestamp).toISOString())).toEqual(["2024-01-15T12:00:00.000Z", "2024-01-24T12:00:00.000Z"]);
    expect(s.persons[0]!.created_at).toBe("2024-01-15T12:00:00.000Z");
    expect(s.meta.groups[0]!.created_at).toBe("2024-01-15T06:00:00.000Z");
    const insight = s.meta.insights[0]!;
    expect([insight.created_at, insight.updated_at, insight.last_modified_at]).toEqual(["2024-01-15T00:00:00.000Z", "2024-01-16T00:00:00.000Z", "2024-01-17T00:00:00.000Z"]);
    expect(insight.filters).toEqual({ date_from: "2024-01-01" });
    expect(s.meta.insight_views[0]!.viewed_at).toBe("2024-01-18T00:00:00.000Z");
    const annotation = s.meta.annotations[0]!;
    expect([annotation.date_marker, annotation.created_at, annotation.updated_at]).toEqual(["2024-01-22T00:00:00.000Z", "2024-01-23T00:00:00.000Z", "2024-01-23T06:00:00.000Z"]);
    expect(s.activity[0]!.created_at).toBe("2024-01-15T00:00:00.000Z");
    expect(s.meta.pending_deletions[0]!.run_at).toBe("2024-01-07T05:00:00.000Z");
  });

  it("moves cohorts, surveys, early access features, web experiments and recordings too (a recording's rrweb instants with it)", () => {
    const s = state();
    s.meta.cohorts = [{ id: 1, project_id: "1", name: "c", created_at: "2024-01-02T00:00:00.000Z" }, { id: 2, project_id: "1", name: "no date" }];
    const survey = { created_at: "2024-01-02T00:00:00.000Z", updated_at: "2024-01-03T00:00:00.000Z", start_date: "2024-01-04T00:00:00.000Z", end_date: null, iteration_start_dates: ["2024-01-04T00:00:00.000Z", "2024-01-05T00:00:00.000Z"], current_iteration_start_date: "2024-01-05T00:00:00.000Z", response_sampling_start_date: null };
    s.meta.surveys = [survey as unknown as NonNullable<State["meta"]["surveys"]>[number]];
    s.meta.early_access_features = [{ id: "f", project_id: "1", feature_flag_id: null, name: "f", description: "", stage: "beta", documentation_url: "", created_at: "2024-01-06T00:00:00.000Z" }];
    s.meta.web_experiments = [{ id: 1, project_id: "1", name: "w", feature_flag_id: 1, variants: {}, created_by: null, created_at: "2024-01-07T00:00:00.000Z" }];
    const snapshot = { type: 2, data: {}, timestamp: Date.parse("2024-01-08T00:00:00Z") };
    s.recordings = [{ project_id: "1", session_id: "s1", window_id: null, distinct_id: "a", lib: "web", received_at: "2024-01-08T00:00:01.000Z", events: [snapshot, "not an event"] }];
    shiftState(s, 14 * DAY);
    expect(s.meta.cohorts.map((c) => c.created_at)).toEqual(["2024-01-16T00:00:00.000Z", undefined]);
    expect(survey).toEqual({ created_at: "2024-01-16T00:00:00.000Z", updated_at: "2024-01-17T00:00:00.000Z", start_date: "2024-01-18T00:00:00.000Z", end_date: null, iteration_start_dates: ["2024-01-18T00:00:00.000Z", "2024-01-19T00:00:00.000Z"], current_iteration_start_date: "2024-01-19T00:00:00.000Z", response_sampling_start_date: null });
    expect(s.meta.early_access_features[0]!.created_at).toBe("2024-01-20T00:00:00.000Z");
    expect(s.meta.web_experiments[0]!.created_at).toBe("2024-01-21T00:00:00.000Z");
    expect(s.recordings[0]!.received_at).toBe("2024-01-22T00:00:01.000Z");
    expect(snapshot.timestamp).toBe(Date.parse("2024-01-22T00:00:00Z"));
    expect(s.recordings[0]!.events[1]).toBe("not an event");
  });

  it("describes the offset in days, hours and minutes", () => {
    expect(describeOffset(14 * DAY + 3_600_000 * 4 + 60_000 * 5)).toBe("+14d 4h 5m");
    expect(describeOffset(-DAY)).toBe("-1d 0h 0m");
  });
});
