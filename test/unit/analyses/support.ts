import type { AnalysisContext } from "../../../src/analyses/shared/context.ts";
import { deriveSessions } from "../../../src/analyses/shared/session-properties.ts";
import type { ActionRecord, ResolvedCohort, EventRecord, PersonRecord, Properties } from "../../../src/store/schema.ts";

/** Journeys declared per person (as PostHog's test_journeys), turned into store records for the analyses. */
export interface JourneyEvent {
  event: string;
  at: string;
  properties: Properties;
  distinctId?: string;
}

export interface PersonSpec {
  /** Distinct ids; the first one is used by events that do not name theirs. Defaults to [name]. */
  ids?: string[];
  properties?: Properties;
  created_at?: string;
  /** No person record: the distinct id is its own person. */
  anonymous?: boolean;
  events: JourneyEvent[];
}

export interface World {
  events: EventRecord[];
  persons: PersonRecord[];
}

/** An instant written without an offset is UTC. */
export const utc = (at: string): number => {
  const iso = at.replace(" ", "T");
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/.test(iso) ? iso : `${iso}Z`);
};

export const ev = (event: string, at: string, properties: Properties = {}, distinctId?: string): JourneyEvent => ({
  event,
  at,
  properties,
  ...(distinctId ? { distinctId } : {}),
});

export function journeys(people: Record<string, JourneyEvent[] | PersonSpec>): World {
  const persons: PersonRecord[] = [];
  const events: EventRecord[] = [];
  let n = 0;
  for (const [name, value] of Object.entries(people)) {
    const spec: PersonSpec = Array.isArray(value) ? { events: value } : value;
    const ids = spec.ids ?? [name];
    n += 1;
    if (!spec.anonymous) {
      persons.push({ id: n, project_id: "1", uuid: `uuid-${name}`, distinct_ids: ids, properties: spec.properties ?? {}, created_at: spec.created_at ?? "2024-01-01T00:00:00Z", is_identified: true });
    }
    spec.events.forEach((e, i) => {
      events.push({ uuid: `${name}-${i}`, project_id: "1", event: e.event, distinct_id: e.distinctId ?? ids[0]!, timestamp: utc(e.at), properties: e.properties, elements_chain: "" });
    });
  }
  events.sort((a, b) => a.timestamp - b.timestamp);
  return { events, persons };
}

export interface ContextOptions {
  now?: string;
  timezone?: string;
  weekStartDay?: 0 | 1;
  cohorts?: ResolvedCohort[];
  actions?: ActionRecord[];
  testAccountFilters?: Properties[];
}

export function contextFor(world: World, options: ContextOptions = {}): AnalysisContext {
  const byId = new Map<string, PersonRecord>();
  for (const person of world.persons) for (const id of person.distinct_ids) byId.set(id, person);
  return {
    projectId: "1",
    now: utc(options.now ?? "2024-03-10T12:00:00"),
    timezone: options.timezone ?? "UTC",
    weekStartDay: options.weekStartDay ?? 0,
    personOf: (id) => byId.get(id),
    cohorts: options.cohorts ?? [],
    actions: options.actions ?? [],
    testAccountFilters: options.testAccountFilters ?? [],
    sessions: () => deriveSessions(world.events),
  };
}

/** The data of reference: analytics §2.8, used by trends and funnels cases alike. */
export const worked = (): World =>
  journeys({
    A: { ids: ["a", "a-anon"], created_at: "2024-03-01T08:00:00Z", events: [
      ev("$pageview", "2024-03-01T08:00", { $browser: "Chrome" }, "a-anon"),
      ev("signup", "2024-03-01T08:10"),
      ev("purchase", "2024-03-01T09:00", { amount: 50 }),
      ev("$pageview", "2024-03-01T15:00", { $browser: "Chrome" }),
      ev("$pageview", "2024-03-03T23:30", { $browser: "Chrome" }),
    ] },
    B: { ids: ["b"], created_at: "2024-03-02T09:00:00Z", events: [
      ev("$pageview", "2024-03-02T09:00", { $browser: "Firefox" }),
      ev("$pageleave", "2024-03-02T09:10"),
      ev("signup", "2024-03-02T09:30"),
      ev("purchase", "2024-03-03T10:00", { amount: 30 }),
    ] },
    C: { ids: ["c"], created_at: "2024-03-01T11:00:00Z", events: [
      ev("$pageview", "2024-03-01T11:00", { $browser: "Safari" }),
      ev("signup", "2024-03-05T12:00"),
    ] },
  });
