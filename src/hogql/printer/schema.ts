/**
 * The HogQL database as the printer sees it: every table a query may name, its fields, and the joins HogQL adds
 * by itself. This is the one module that knows the ClickHouse mirror's table and column names (the engine's
 * layout: `src/sql-engine/` in the engine's branch); nothing else in the printer names a table or a column.
 * Facts from PostHog `posthog/hogql/database/schema/{events,persons,person_distinct_ids,groups,sessions_v2}.py`.
 */

import { VIRTUAL_PERSON_PROPERTY_NAMES } from "../../core/virtual-person-properties.ts";

export const TABLE_NAMES = ["events", "persons", "person_distinct_ids", "groups", "sessions"] as const;
export type TableName = (typeof TABLE_NAMES)[number];

export type FieldType = "string" | "integer" | "float" | "datetime" | "uuid" | "boolean" | "json";

export interface ColumnField {
  kind: "column";
  /** The ClickHouse column. */
  ch: string;
  type: FieldType;
  /** Only nullable columns get HogQL's null-safe comparison wrapping. */
  nullable: boolean;
}

/** A join HogQL adds when a field path crosses it (`person.properties.x`, `pdi.person_id`, `session.$is_bounce`). */
export interface LazyJoinField {
  kind: "join";
  table: TableName;
  /** This table's field … */
  from: string;
  /** … equals the joined table's field. */
  to: string;
  /** Constant conditions on the joined table (`group_0` is the group of type index 0). */
  where?: Record<string, number>;
  /**
   * Joined by this table's `distinct_id` to person_distinct_ids joined with persons (one row per distinct id), which
   * finds the same person as `from` = `to`: events' `person_id` reads a dictionary once per event, and that read
   * cost more than the join (10 M events grouped by a person property: see bench/sql-engine.ts).
   */
  byDistinctId?: boolean;
}

/** A name that stands for a path through joins (HogQL's FieldTraverser): `person` on events is `pdi.person`. */
export interface PathField {
  kind: "path";
  path: string[];
}

export type Field = ColumnField | LazyJoinField | PathField;

export interface Table {
  /** The ClickHouse table; always read through `scopedTableSql`, never named bare. */
  ch: string;
  fields: Record<string, Field>;
  /** What `*` expands to, in order (HogQL never lets `*` reach ClickHouse). */
  asterisk: string[];
}

const col = (ch: string, type: FieldType, nullable = false): ColumnField => ({ kind: "column", ch, type, nullable });
const join = (table: TableName, from: string, to: string, where?: Record<string, number>): LazyJoinField => ({ kind: "join", table, from, to, ...(where ? { where } : {}) });

const groupColumns = Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`$group_${i}`, col(`$group_${i}`, "string")]));
/** `group_0.properties.name`: the event's group of type index 0 (HogQL's events.group_N lazy joins). */
const groupJoins = Object.fromEntries([0, 1, 2, 3, 4].map((i) => [`group_${i}`, join("groups", `$group_${i}`, "key", { index: i })]));

export const SCHEMA: Record<TableName, Table> = {
  events: {
    ch: "events",
    fields: {
      uuid: col("uuid", "uuid"),
      event: col("event", "string"),
      properties: col("properties", "json"),
      timestamp: col("timestamp", "datetime"),
      distinct_id: col("distinct_id", "string"),
      elements_chain: col("elements_chain", "string"),
      created_at: col("created_at", "datetime"),
      $session_id: col("$session_id", "string"),
      ...groupColumns,
      // The person is found through the distinct id, as the real service does without persons-on-events: the
      // mirror's `person_id` reads person_distinct_ids through a dictionary at query time, so merges re-point it
      // without touching old events, and a joined `events` needs no join of its own to know its person.
      person_id: col("person_id", "uuid"),
      team_id: col("team_id", "integer"),
      pdi: join("person_distinct_ids", "distinct_id", "distinct_id"),
      person: { ...join("persons", "person_id", "id"), byDistinctId: true },
      // Persons-on-events: this store keeps no person properties per event, so poe reads the person as it is now.
      poe: { ...join("persons", "person_id", "id"), byDistinctId: true },
      session: join("sessions", "$session_id", "session_id"),
      ...groupJoins,
    },
    asterisk: ["uuid", "event", "properties", "timestamp", "distinct_id", "elements_chain", "created_at", "$session_id", "$group_0", "$group_1", "$group_2", "$group_3", "$group_4", "person_id"],
  },
  persons: {
    ch: "persons",
    fields: {
      id: col("id", "uuid"),
      created_at: col("created_at", "datetime"),
      team_id: col("team_id", "integer"),
      properties: col("properties", "json"),
      is_identified: col("is_identified", "boolean"),
      // Virtual fields (`$virt_initial_channel_type`): columns the mirror fills with the in-process derivation.
      ...Object.fromEntries(VIRTUAL_PERSON_PROPERTY_NAMES.map((name) => [name, col(name, "string")])),
    },
    asterisk: ["id", "created_at", "properties", "is_identified"],
  },
  person_distinct_ids: {
    ch: "person_distinct_ids",
    fields: {
      distinct_id: col("distinct_id", "string"),
      person_id: col("person_id", "uuid"),
      team_id: col("team_id", "integer"),
      person: join("persons", "person_id", "id"),
      // Persons-on-events: this store keeps no person properties per event, so poe reads the person as it is now.
      poe: join("persons", "person_id", "id"),
    },
    asterisk: ["distinct_id", "person_id"],
  },
  groups: {
    ch: "groups",
    fields: {
      index: col("index", "integer"),
      key: col("key", "string"),
      created_at: col("created_at", "datetime"),
      team_id: col("team_id", "integer"),
      properties: col("properties", "json"),
    },
    asterisk: ["index", "key", "created_at", "properties"],
  },
  sessions: {
    ch: "sessions",
    fields: {
      session_id: col("session_id", "string"),
      id: col("id", "string"),
      team_id: col("team_id", "integer"),
      distinct_id: col("distinct_id", "string"),
      $start_timestamp: col("$start_timestamp", "datetime"),
      $end_timestamp: col("$end_timestamp", "datetime"),
      $session_duration: col("$session_duration", "integer"),
      $entry_current_url: col("$entry_current_url", "string", true),
      $end_current_url: col("$end_current_url", "string", true),
      $pageview_count: col("$pageview_count", "integer"),
      $autocapture_count: col("$autocapture_count", "integer"),
      $is_bounce: col("$is_bounce", "boolean"),
      $channel_type: col("$channel_type", "string"),
    },
    asterisk: ["session_id", "distinct_id", "$start_timestamp", "$end_timestamp", "$session_duration", "$entry_current_url", "$end_current_url", "$pageview_count", "$autocapture_count", "$is_bounce", "$channel_type"],
  },
};

export const isTableName = (name: string): name is TableName => (TABLE_NAMES as readonly string[]).includes(name);

/** The column every table is filtered on: our project id. */
export const TEAM_COLUMN = "team_id";
