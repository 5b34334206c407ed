/**
 * The mirror's ClickHouse tables: the real service's HogQL tables (PostHog/posthog
 * posthog/hogql/database/schema/events.py, persons.py, person_distinct_ids.py, groups.py, sessions_v2.py), one row
 * per current record (no versions to collapse: the mirror replaces what changed), each with `team_id` and
 * partitioned by it so that one project's rows are replaced at once (REPLACE PARTITION from a staging table).
 *
 * Column names are HogQL's field names, so the printer maps a field to a column one to one.
 */
import { createHash } from "node:crypto";
import { VIRTUAL_PERSON_PROPERTY_NAMES } from "../../core/virtual-person-properties.ts";
import { CHANNEL_DICTIONARY, CHANNEL_TABLE, channelDefinitionDdl, sessionChannelTypeSql } from "./channel-sql.ts";
import { MATERIALIZED_PROPERTIES } from "../../core/property-text.ts";

/** The extraction the real service materialises a property with (raw JSON, one pair of quotes removed). */
const rawProperty = (key: string) => `replaceRegexpAll(JSONExtractRaw(properties, ${quote(key)}), '^"|"$', '')`;

/** A ClickHouse string literal (property keys and names made here only). */
export const quote = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
export const ident = (s: string) => `\`${s.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``;

/** The 5 group slots of an event (`$group_0` … `$group_4`). */
export const GROUP_COLUMNS = [0, 1, 2, 3, 4].map((i) => `$group_${i}`);

const ZERO_UUID = "toUUID('00000000-0000-0000-0000-000000000000')";
export const PDI_DICTIONARY = "person_distinct_id_dict";

/**
 * Each mirrored event's log number (src/store/log.ts): the mirror follows the store's log by it, and rows of a load
 * the manifest never recorded (an engine or a server killed mid-load) are found by it. Not a HogQL field.
 */
export const LOG_SEQ_COLUMN = "_log_seq";

/** What the mirror writes to a table and how the staged text reads: one `file()` structure per table. */
export interface LoadSpec {
  table: string;
  /** How the staged file is written: Native (events: columns of binary values) or TSV (the rest). */
  format: "Native" | "TSV";
  /** Columns written, in the file's order. */
  columns: string[];
  /** The file's structure for `file()`: uuids arrive as text and become UUIDs (an odd one becomes zero). */
  structure: string;
  /** The SELECT list over the file, in `columns` order. */
  select: string;
}

/** The properties the events' materialised columns hold, in load order: `$session_id`, `$window_id`, then the hot ones. */
export const EVENT_PROPERTY_COLUMNS: readonly { key: string; column: string }[] = [
  { key: "$session_id", column: "$session_id" },
  { key: "$window_id", column: "$window_id" },
  ...MATERIALIZED_PROPERTIES.map((key) => ({ key, column: `mat_${key}` })),
];

/** The events file's columns (name and ClickHouse type), in order: what each Native block declares. */
export const EVENT_FILE_COLUMNS: readonly { name: string; type: string }[] = [
  { name: "team_id", type: "Int64" },
  ...["uuid", "event", "properties"].map((name) => ({ name, type: "String" })),
  { name: "timestamp", type: "DateTime64(6, 'UTC')" },
  ...["distinct_id", "elements_chain", ...GROUP_COLUMNS.map((_, i) => `g${i}`), ...EVENT_PROPERTY_COLUMNS.map((_, i) => `m${i}`)].map((name) => ({ name, type: "String" })),
  { name: "seq", type: "UInt32" },
];

/**
 * The materialised columns arrive with the rows (computed by encode.ts's rawText, the same value ClickHouse's
 * expression gives): ClickHouse parsing every event's JSON once per column cost more.
 * Native, not TSV: ClickHouse reads Native with about half the CPU.
 */
export const EVENTS_LOAD: LoadSpec = {
  table: "events",
  format: "Native",
  columns: ["team_id", "uuid", "event", "properties", "timestamp", "distinct_id", "elements_chain", ...GROUP_COLUMNS, ...EVENT_PROPERTY_COLUMNS.map((c) => c.column), LOG_SEQ_COLUMN],
  structure: EVENT_FILE_COLUMNS.map((c) => `${c.name} ${c.type}`).join(", "),
  select: `team_id, toUUIDOrZero(uuid), event, properties, timestamp, distinct_id, elements_chain, g0, g1, g2, g3, g4, ${EVENT_PROPERTY_COLUMNS.map((_, i) => `m${i}`).join(", ")}, seq`,
};

/** Virtual person properties (`$virt_initial_channel_type`) arrive computed, one column each, after the stored fields. */
export const PERSONS_LOAD: LoadSpec = {
  format: "TSV",
  table: "persons",
  columns: ["team_id", "id", "created_at", "properties", "is_identified", ...VIRTUAL_PERSON_PROPERTY_NAMES],
  structure: `team_id Int64, id String, created_at DateTime64(6, 'UTC'), properties String, is_identified Bool${VIRTUAL_PERSON_PROPERTY_NAMES.map((_, i) => `, v${i} String`).join("")}`,
  select: `team_id, toUUIDOrZero(id), created_at, properties, is_identified${VIRTUAL_PERSON_PROPERTY_NAMES.map((_, i) => `, v${i}`).join("")}`,
};

export const PDI_LOAD: LoadSpec = {
  format: "TSV",
  table: "person_distinct_ids",
  columns: ["team_id", "distinct_id", "person_id"],
  structure: "team_id Int64, distinct_id String, person_id String",
  select: "team_id, distinct_id, toUUIDOrZero(person_id)",
};

export const GROUPS_LOAD: LoadSpec = {
  format: "TSV",
  table: "groups",
  columns: ["team_id", "index", "key", "created_at", "properties"],
  structure: "team_id Int64, group_index Int64, group_key String, created_at DateTime64(6, 'UTC'), properties String",
  select: "team_id, group_index, group_key, created_at, properties",
};

const EVENTS_DDL = `CREATE TABLE IF NOT EXISTS events (
  team_id Int64,
  uuid UUID,
  event String,
  properties String,
  timestamp DateTime64(6, 'UTC'),
  distinct_id String,
  elements_chain String,
  ${LOG_SEQ_COLUMN} UInt32,
  ${GROUP_COLUMNS.map((c) => `${ident(c)} String`).join(",\n  ")},
  ${EVENT_PROPERTY_COLUMNS.map(({ key, column }) => `${ident(column)} String MATERIALIZED ${rawProperty(key)}`).join(",\n  ")},
  created_at DateTime64(6, 'UTC') ALIAS timestamp,
  person_id UUID ALIAS dictGetOrDefault('${PDI_DICTIONARY}', 'person_id', (team_id, distinct_id), ${ZERO_UUID})
) ENGINE = MergeTree PARTITION BY team_id ORDER BY (team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))`;

const PERSONS_DDL = `CREATE TABLE IF NOT EXISTS persons (
  team_id Int64, id UUID, created_at DateTime64(6, 'UTC'), properties String, is_identified Bool${VIRTUAL_PERSON_PROPERTY_NAMES.map((name) => `, ${ident(name)} String`).join("")}
) ENGINE = MergeTree PARTITION BY team_id ORDER BY (team_id, id)`;

const PDI_DDL = `CREATE TABLE IF NOT EXISTS person_distinct_ids (
  team_id Int64, distinct_id String, person_id UUID
) ENGINE = MergeTree PARTITION BY team_id ORDER BY (team_id, distinct_id)`;

const GROUPS_DDL = `CREATE TABLE IF NOT EXISTS groups (
  team_id Int64, \`index\` Int64, \`key\` String, created_at DateTime64(6, 'UTC'), properties String
) ENGINE = MergeTree PARTITION BY team_id ORDER BY (team_id, \`index\`, \`key\`)`;

/** An event's person, resolved at read time: merges and splits change it without touching the events. */
const PDI_DICTIONARY_DDL = `CREATE DICTIONARY IF NOT EXISTS ${PDI_DICTIONARY} (team_id Int64, distinct_id String, person_id UUID)
PRIMARY KEY team_id, distinct_id SOURCE(CLICKHOUSE(TABLE 'person_distinct_ids')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0)`;

/** A session property read the way our in-process sessions read it (src/analyses/shared/session-properties.ts). */
const entry = (key: string) => `nullIf(argMin(JSONExtractString(properties, ${quote(key)}), timestamp), '')`;

/**
 * `sessions`, computed from events as the real sessions table (v2) aggregates them: entry/end URL are the
 * `$current_url` of the session's first and last event (empty ⇒ NULL), the duration is `dateDiff('second', …)`,
 * `$is_bounce` follows the default COUNT_PAGEVIEWS mode with the 10 s threshold. `$channel_type` is the channel
 * rules over the entry values (channel-sql.ts), as in-process.
 */
const SESSIONS_DDL = `CREATE VIEW IF NOT EXISTS sessions AS
SELECT
  team_id,
  ${ident("$session_id")} AS session_id,
  session_id AS id,
  argMax(distinct_id, timestamp) AS distinct_id,
  min(timestamp) AS ${ident("$start_timestamp")},
  max(timestamp) AS ${ident("$end_timestamp")},
  groupUniqArrayIf(JSONExtractString(properties, '$current_url'), JSONExtractString(properties, '$current_url') != '') AS ${ident("$urls")},
  length(${ident("$urls")}) AS ${ident("$num_uniq_urls")},
  nullIf(argMin(JSONExtractString(properties, '$current_url'), timestamp), '') AS ${ident("$entry_current_url")},
  nullIf(argMax(JSONExtractString(properties, '$current_url'), timestamp), '') AS ${ident("$end_current_url")},
  ${ident("$end_current_url")} AS ${ident("$exit_current_url")},
  path(${ident("$entry_current_url")}) AS ${ident("$entry_pathname")},
  domain(${ident("$entry_current_url")}) AS ${ident("$entry_hostname")},
  path(${ident("$end_current_url")}) AS ${ident("$end_pathname")},
  ${ident("$end_pathname")} AS ${ident("$exit_pathname")},
  domain(${ident("$end_current_url")}) AS ${ident("$end_hostname")},
  ${[
    ["$entry_referring_domain", "$referring_domain"],
    ["$entry_referrer", "$referrer"],
    ["$entry_utm_source", "utm_source"],
    ["$entry_utm_campaign", "utm_campaign"],
    ["$entry_utm_medium", "utm_medium"],
    ["$entry_utm_term", "utm_term"],
    ["$entry_utm_content", "utm_content"],
    ["$entry_gclid", "gclid"],
    ["$entry_fbclid", "fbclid"],
    ["$entry_gad_source", "gad_source"],
  ]
    .map(([name, key]) => `${entry(key!)} AS ${ident(name!)}`)
    .join(",\n  ")},
  countIf(event = '$pageview') AS ${ident("$pageview_count")},
  countIf(event = '$autocapture') AS ${ident("$autocapture_count")},
  countIf(event = '$screen') AS ${ident("$screen_count")},
  dateDiff('second', ${ident("$start_timestamp")}, ${ident("$end_timestamp")}) AS ${ident("$session_duration")},
  ${ident("$session_duration")} AS duration,
  if(${ident("$pageview_count")} = 0, NULL, NOT (${ident("$pageview_count")} > 1 OR ${ident("$autocapture_count")} > 0 OR ${ident("$session_duration")} >= 10)) AS ${ident("$is_bounce")},
  ${sessionChannelTypeSql(
    {
      campaign: ident("$entry_utm_campaign"),
      medium: ident("$entry_utm_medium"),
      source: ident("$entry_utm_source"),
      referringDomain: ident("$entry_referring_domain"),
      gclid: ident("$entry_gclid"),
      fbclid: ident("$entry_fbclid"),
      gadSource: ident("$entry_gad_source"),
    },
    quote,
  )} AS ${ident("$channel_type")}
FROM events
WHERE ${ident("$session_id")} != ''
GROUP BY team_id, ${ident("$session_id")}`;

/** Every statement that makes the mirror's tables, in order (each idempotent). */
export const MIRROR_DDL: readonly string[] = [...channelDefinitionDdl(quote), PERSONS_DDL, PDI_DDL, PDI_DICTIONARY_DDL, GROUPS_DDL, EVENTS_DDL, SESSIONS_DDL];

/** The staging twin of a table, where a project's rows are built before they replace its partition. */
export const stageOf = (table: string) => `${table}_stage`;
export const STAGED_TABLES = ["events", "persons", "person_distinct_ids", "groups"] as const;

/** Changes whenever the DDL does: a mirror made by another schema is rebuilt, never reused. */
export const SCHEMA_ID = createHash("sha1").update(MIRROR_DDL.join(";")).digest("hex").slice(0, 12);

/** The tables and views the mirror owns, in an order they can be dropped in (when the schema changes). */
export const MIRROR_OBJECTS = ["sessions", stageOf("events"), "events", PDI_DICTIONARY, ...STAGED_TABLES.filter((t) => t !== "events").flatMap((t) => [stageOf(t), t]), CHANNEL_DICTIONARY, CHANNEL_TABLE];

/**
 * ClickHouse's team_id for a project: its id when that is an integer (as the real service's are), else a
 * stable negative number derived from it (never equal to an integer id).
 */
export function teamIdOf(projectId: string): number {
  if (/^\d{1,15}$/.test(projectId)) return Number(projectId);
  return -(parseInt(createHash("sha1").update(projectId).digest("hex").slice(0, 12), 16) + 1);
}
