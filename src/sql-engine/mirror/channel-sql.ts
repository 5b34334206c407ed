import { MEDIUM_DEFINITIONS, SOURCE_DEFINITIONS, type ChannelDefinition } from "../../core/channel-definitions.ts";
import { channelRules, type ChannelOps } from "../../core/channel-rules.ts";

/**
 * The channel rules (src/core/channel-rules.ts) printed as ClickHouse SQL for the mirror's sessions view, over the
 * channel definitions loaded into a dictionary as the real service loads them (PostHog/posthog
 * posthog/models/channel_type/sql.py: `channel_definition` and `channel_definition_dict`, keyed by (domain, kind)).
 * `literal` is the mirror's string-literal function (schema.ts `quote`), passed in so this module needs no other.
 */
export const CHANNEL_TABLE = "channel_definition";
export const CHANNEL_DICTIONARY = "channel_definition_dict";

const COLUMNS: Readonly<Record<keyof ChannelDefinition, string>> = { domainType: "domain_type", ifPaid: "type_if_paid", ifOrganic: "type_if_organic" };
const STRUCTURE = "domain String, kind String, domain_type Nullable(String), type_if_paid Nullable(String), type_if_organic Nullable(String)";

type Literal = (text: string) => string;

/** The definitions table (filled when made) and its dictionary; a change of data changes the schema id, so it is remade. */
export function channelDefinitionDdl(literal: Literal): string[] {
  const text = (value: string | null) => (value === null ? "NULL" : literal(value));
  const rows = (kind: string, definitions: ReadonlyMap<string, ChannelDefinition>) =>
    [...definitions].map(([domain, d]) => `(${literal(domain)}, ${literal(kind)}, ${text(d.domainType)}, ${text(d.ifPaid)}, ${text(d.ifOrganic)})`);
  const values = [...rows("source", SOURCE_DEFINITIONS), ...rows("medium", MEDIUM_DEFINITIONS)].join(", ");
  return [
    `CREATE TABLE IF NOT EXISTS ${CHANNEL_TABLE} ENGINE = MergeTree ORDER BY (domain, kind) AS SELECT * FROM values(${literal(STRUCTURE)}, ${values})`,
    `CREATE DICTIONARY IF NOT EXISTS ${CHANNEL_DICTIONARY} (${STRUCTURE}) PRIMARY KEY domain, kind SOURCE(CLICKHOUSE(TABLE '${CHANNEL_TABLE}')) LAYOUT(COMPLEX_KEY_HASHED()) LIFETIME(0)`,
  ];
}

/** The rules' algebra as SQL text: a condition on NULL is NULL, which `multiIf` takes as false. */
function sqlOps(literal: Literal): ChannelOps<string, string> {
  const dictGet = (column: keyof ChannelDefinition, key: string, kind: string) => `dictGetOrNull('${CHANNEL_DICTIONARY}', '${COLUMNS[column]}', (${key}, '${kind}'))`;
  return {
    text: (value) => (value === null ? "NULL" : literal(value)),
    matches: (value, pattern) => `match(${value}, ${literal(pattern)})`,
    startsWith: (value, prefix) => `startsWith(${value}, ${literal(prefix)})`,
    oneOf: (value, list) => `(${value} IN (${list.map(literal).join(", ")}))`,
    equals: (value, text) => `(${value} = ${literal(text)})`,
    isNull: (value) => `isNull(${value})`,
    not: (condition) => `(NOT ${condition})`,
    and: (...conditions) => `(${conditions.join(" AND ")})`,
    or: (...conditions) => `(${conditions.join(" OR ")})`,
    lookup: (value, table, column) =>
      table === "medium"
        ? dictGet(column, `coalesce(${value}, '')`, "medium")
        : `coalesce(${dictGet(column, `coalesce(${value}, '')`, "source")}, ${dictGet(column, `cutToFirstSignificantSubdomain(coalesce(${value}, ''))`, "source")})`,
    coalesce: (...values) => `coalesce(${values.map((v) => v()).join(", ")})`,
    cases: (branches, otherwise) => `multiIf(${[...branches.flatMap(([condition, value]) => [condition(), value()]), otherwise()].join(", ")})`,
  };
}

/** Columns of the sessions view holding the entry values (empty already NULL), by their part in the rules. */
export interface EntryColumns {
  campaign: string;
  medium: string;
  source: string;
  referringDomain: string;
  gclid: string;
  fbclid: string;
  gadSource: string;
}

/** A session's `$channel_type` over its entry columns, normalised as sessionChannelType does in-process. */
export function sessionChannelTypeSql(entry: EntryColumns, literal: Literal): string {
  const blankIsNull = (sql: string) => `nullIf(nullIf(${sql}, ''), 'null')`;
  const lowered = (sql: string) => `lower(${blankIsNull(sql)})`;
  return channelRules(
    {
      campaign: lowered(entry.campaign),
      medium: lowered(entry.medium),
      source: lowered(entry.source),
      referringDomain: entry.referringDomain,
      gadSource: blankIsNull(entry.gadSource),
      hasGclid: `isNotNull(${entry.gclid})`,
      hasFbclid: `isNotNull(${entry.fbclid})`,
    },
    sqlOps(literal),
  );
}
