import type { ActionRecord, ResolvedCohort, PersonRecord, Properties } from "../../store/schema.ts";
import type { ActorTable, DistinctIds } from "./actor-table.ts";
import type { GroupData } from "./groups.ts";
import type { SessionTable } from "./session-properties.ts";
import type { HogqlPropertyTypes } from "../../hogql/evaluate.ts";

/** Everything an analysis may know besides the events: injected, never read from globals. */
export interface AnalysisContext {
  projectId: string;
  /** Epoch ms; analyses never read the wall clock. */
  now: number;
  /** IANA zone of the project (reference: analytics §1.2). */
  timezone: string;
  /** 0 = Sunday, 1 = Monday. */
  weekStartDay: 0 | 1;
  /** undefined ⇒ the distinct id is its own person (reference: analytics §1.1). */
  personOf(distinctId: string): PersonRecord | undefined;
  cohorts: readonly ResolvedCohort[];
  actions: readonly ActionRecord[];
  testAccountFilters: readonly Properties[];
  /** The project's group types and groups (group analytics); absent = none. */
  groups?: GroupData;
  /**
   * The project's property types (its property definitions: Numeric, Boolean, DateTime, String), read by in-process
   * HogQL as HogQL reads them; absent, every property reads as text.
   */
  propertyTypes?: () => HogqlPropertyTypes;
  /** The longest one in-process HogQL evaluation may run (the server's --query-time-limit); absent, the default. */
  queryTimeLimitMs?: number;
  /**
   * The first `count` distinct ids of the project's event table (`ids`) resolved to their actors, cached per data
   * version; absent, each analysis resolves them itself.
   */
  actorTable?: (ids: DistinctIds, count: number) => ActorTable;
  /** The project's sessions (derived from all its events), computed on first use and cached per data version. */
  sessions?: () => SessionTable;
  /**
   * The query parameters a persons endpoint declares: persons URLs carry only those of the filter's keys, so a
   * display key (`layout`, `show_legend`) never makes the link a 400. Absent: every key is carried.
   */
  personsQueryKeys?: (endpoint: PersonsEndpoint) => ReadonlySet<string> | undefined;
}

/** The persons endpoints that results link to (legacy persons URLs). */
export type PersonsEndpoint = "funnel" | "retention" | "funnel/correlation";

/** The part of the context that compiling property filters needs. */
export type FilterContext = Pick<AnalysisContext, "cohorts" | "now" | "timezone"> & Pick<Partial<AnalysisContext>, "groups" | "propertyTypes" | "queryTimeLimitMs" | "sessions">;

export const INTERVALS = ["minute", "hour", "day", "week", "month"] as const;
export type Interval = (typeof INTERVALS)[number];

export const MS = { second: 1_000, minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;
