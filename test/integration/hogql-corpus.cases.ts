/**
 * The HogQL corpus: real queries, each with where it comes from, run through the query API and held against
 * ClickHouse SQL written by hand the way PostHog's printer (posthog/hogql/printer.py, functions/mapping.py) would
 * print it, but against this server's mirror tables (src/sql-engine/mirror/schema.ts) and project 1's team_id.
 *
 * The hand SQL follows the printer's rules: every table filtered with `equals(<table>.team_id, 1)`; a property read
 * is `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, 'k'), ''), 'null'), '^"|"$', '')`; a numeric
 * property (amount) is cast with `accurateCastOrNull(…, 'Float64')`; `a = b` on a nullable side is
 * `ifNull(equals(a, b), 0)`, `a != b` is `ifNull(notEquals(a, b), 1)`, `= NULL` is `isNull`; date-times are read
 * through `toTimeZone(…, 'UTC')`; `now()` is the frozen clock (2024-03-08 12:00:00 UTC); `{filters}`' date range is
 * `timestamp < date_to AND timestamp >= date_from`, each date at 00:00 in the project's zone (posthog/hogql/filters.py:
 * isoparse, `Lt` then `GtEq`; `$start_timestamp` on sessions); `person.*` goes through
 * person_distinct_ids (PostHog's `events__pdi`) to persons (`events__pdi__person`); `concat` wraps each argument
 * in `ifNull(toString(x), '')`.
 *
 * Output rule, so the two sides compare without the API's cell conversion: the hand SQL formats each date-time it
 * returns as `formatDateTime(x, '%Y-%m-%dT%H:%i:%SZ')` (the API answers ISO 8601 in UTC projects, e.g.
 * "2024-03-04T08:00:00Z"), each Date as `toString(d)` ('YYYY-MM-DD'), each UUID as `toString(u)`. Numbers,
 * strings, NULLs, arrays and tuples (as JSON arrays) come back as ClickHouse's JSON writes them.
 *
 * Sources: posthog.com pages are cited by URL (their text is PostHog/posthog.com `contents/…`); PostHog/posthog
 * test files by path and test name. "adapted" says what was changed to fit the fixture (names of properties or
 * events, a WHERE or an ORDER BY added so the answer is deterministic).
 */

export const CATEGORIES = [
  "basics",
  "aggregates",
  "time",
  "strings",
  "conditionals",
  "arrays",
  "joins",
  "sessions",
  "subqueries",
  "ctes",
  "union",
  "window",
  "limit-by",
  "funnels",
  "placeholders",
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface CorpusCase {
  category: Category;
  name: string;
  /** Where the query comes from (URL or PostHog/posthog path + test), and what was adapted. */
  source: string;
  hogql: string;
  /** ClickHouse SQL written by hand, run directly on the mirror. */
  clickhouse: string;
  /** The column names HogQL gives (checked where its naming rules matter). */
  columns?: string[];
  /** HogQLQuery.filters. */
  filters?: Record<string, unknown>;
  /** HogQLQuery.variables, in the real service's shape: {<id>: {code_name, variableId, value}}. */
  variables?: Record<string, { code_name: string; variableId: string; value: unknown }>;
  /** Rows compare as a multiset (the query fixes no order). */
  unordered?: boolean;
  /** Project 1's time zone for this case (default UTC): the same rows, shown and bucketed in that zone. */
  timezone?: string;
}

const lit = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
/** HogQL's property read (PostHog printer, `visit_property_type`). */
const prop = (table: string, ...keys: (string | number)[]) =>
  `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${table}.properties, ${keys.map((k) => (typeof k === "number" ? String(k) : lit(k))).join(", ")}), ''), 'null'), '^"|"$', '')`;
const ev = (...keys: (string | number)[]) => prop("events", ...keys);
/** A property typed Numeric by its definition: `toFloat(…)` → accurateCastOrNull. */
const num = (expr: string) => `accurateCastOrNull(${expr}, 'Float64')`;
const tz = (column: string) => `toTimeZone(${column}, 'UTC')`;
const iso = (expr: string) => `formatDateTime(${expr}, '%Y-%m-%dT%H:%i:%SZ')`;
const TS = tz("events.timestamp");
const NOW = "toDateTime64('2024-03-08 12:00:00.000000', 6, 'UTC')";
const TEAM = "equals(events.team_id, 1)";
const toTimeZoneOf = (expr: string, zone: string) => `toTimeZone(${expr}, '${zone}')`;
const PDI = "LEFT JOIN (SELECT distinct_id, person_id FROM person_distinct_ids WHERE equals(team_id, 1)) AS events__pdi ON equals(events.distinct_id, events__pdi.distinct_id)";
const PERSON = `${PDI} LEFT JOIN (SELECT id, created_at, properties FROM persons WHERE equals(team_id, 1)) AS events__pdi__person ON equals(events__pdi.person_id, events__pdi__person.id)`;
const personProp = (key: string) => prop("events__pdi__person", key);
const SESSION = "LEFT JOIN (SELECT session_id, `$session_duration`, `$entry_current_url` FROM sessions WHERE equals(team_id, 1)) AS events__session ON equals(events.`$session_id`, events__session.session_id)";

const Q_DOCS_SQL = "https://posthog.com/docs/sql";
const Q_EXPRESSIONS = "https://posthog.com/docs/sql/expressions";
const Q_AGGREGATIONS = "https://posthog.com/docs/sql/aggregations";
const Q_FUNCTIONS = "https://posthog.com/docs/sql/clickhouse-functions";
const Q_DATE_FILTERS = "https://posthog.com/tutorials/hogql-date-time-filters";
const Q_ARRAYS = "https://posthog.com/tutorials/array-filter-breakdown";
const Q_TIME_ON_PAGE = "https://posthog.com/tutorials/time-on-page";
const Q_TOUCH = "https://posthog.com/tutorials/first-last-touch-attribution";
const Q_VARIABLES = "https://posthog.com/docs/sql/variables";
const Q_SKILL = "PostHog/posthog products/posthog_ai/skills/query-data/SKILL.md";
const TQ = "PostHog/posthog posthog/hogql/test/test_query.py";
const TP = "PostHog/posthog posthog/hogql/test/test_printer.py";

const basics: CorpusCase[] = [
  {
    category: "basics",
    name: "count by event with a property filter",
    source: `${TQ} test_query — adapted: properties.random_uuid = {random_uuid} → properties.$browser = 'Chrome', ORDER BY added`,
    hogql: "select count(), event from events where properties.$browser = 'Chrome' group by event order by event",
    clickhouse: `SELECT count(), events.event FROM events WHERE and(${TEAM}, ifNull(equals(${ev("$browser")}, 'Chrome'), 0)) GROUP BY events.event ORDER BY events.event ASC`,
    columns: ["count()", "event"],
  },
  {
    category: "basics",
    name: "the query API example: events by count",
    source: `${Q_DOCS_SQL} (Query API example)`,
    hogql: "SELECT event, COUNT() FROM events GROUP BY event ORDER BY COUNT() DESC",
    clickhouse: `SELECT events.event, count() FROM events WHERE ${TEAM} GROUP BY events.event ORDER BY count() DESC`,
  },
  {
    category: "basics",
    name: "properties.$browser names its column $browser",
    source: `${TP} test_hogql_properties (properties.$browser); ${Q_EXPRESSIONS} (dot notation) — adapted: WHERE/ORDER BY added`,
    hogql: "SELECT properties.$browser FROM events WHERE event = 'signup' ORDER BY timestamp",
    clickhouse: `SELECT ${ev("$browser")} AS \`$browser\` FROM events WHERE and(${TEAM}, equals(events.event, 'signup')) ORDER BY ${TS} ASC`,
    columns: ["$browser"],
  },
  {
    category: "basics",
    name: "person.id and person.properties.email on events",
    source: `${TQ} test_query_select_person_with_joins_without_poe — adapted: sneaky_mail → email, WHERE/ORDER BY instead of LIMIT 10`,
    hogql: "SELECT event, timestamp, person.id, person.properties.email FROM events WHERE event = 'purchase' ORDER BY timestamp",
    clickhouse: `SELECT events.event, ${iso(TS)}, toString(events__pdi__person.id), ${personProp("email")} FROM events ${PERSON} WHERE and(${TEAM}, equals(events.event, 'purchase')) ORDER BY ${TS} ASC`,
    columns: ["event", "timestamp", "id", "email"],
  },
  {
    category: "basics",
    name: "!= keeps rows that lack the property",
    source: `${TQ} test_null_equality (null != 2 is 1); ${Q_EXPRESSIONS} (comparison operators)`,
    hogql: "SELECT count() FROM events WHERE properties.$browser != 'Chrome'",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, ifNull(notEquals(${ev("$browser")}, 'Chrome'), 1))`,
  },
  {
    category: "basics",
    name: "= NULL is isNull (absent and JSON null alike)",
    source: `${TP} test_equals_null (1 == null → isNull(1))`,
    hogql: "SELECT count() FROM events WHERE properties.$browser = NULL",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, isNull(${ev("$browser")}))`,
  },
  {
    category: "basics",
    name: "IS NOT NULL on a person property",
    source: `${Q_EXPRESSIONS} (person.properties.$initial_utm_source IS NOT NULL) — adapted: → person.properties.email`,
    hogql: "SELECT count() FROM events WHERE person.properties.email IS NOT NULL",
    clickhouse: `SELECT count() FROM events ${PERSON} WHERE and(${TEAM}, isNotNull(${personProp("email")}))`,
  },
  {
    category: "basics",
    name: "null, absent and present properties",
    source: `${TQ} test_null_properties — adapted: the fixture's plan_changed events`,
    hogql: "SELECT properties.from, properties.$browser, properties.undefined FROM events WHERE events.event = 'plan_changed' ORDER BY timestamp",
    clickhouse: `SELECT ${ev("from")}, ${ev("$browser")}, ${ev("undefined")} FROM events WHERE and(${TEAM}, equals(events.event, 'plan_changed')) ORDER BY ${TS} ASC`,
    columns: ["from", "$browser", "undefined"],
  },
  {
    category: "basics",
    name: "numbers(1, 4) table function",
    source: `${TQ} test_numbers_table`,
    hogql: "SELECT number from numbers(1, 4)",
    clickhouse: "SELECT number FROM numbers(1, 4)",
  },
  {
    category: "basics",
    name: "distinct person property from persons",
    source: `${TQ} test_query_distinct — adapted: sneaky_mail → email, random_uuid → plan, ORDER BY added`,
    hogql: "select distinct properties.email from persons where properties.plan = 'pro' order by properties.email",
    clickhouse: `SELECT DISTINCT ${prop("persons", "email")} AS email FROM persons WHERE and(equals(persons.team_id, 1), ifNull(equals(${prop("persons", "plan")}, 'pro'), 0)) ORDER BY email ASC`,
  },
];

const aggregates: CorpusCase[] = [
  {
    category: "aggregates",
    name: "count(*)",
    source: `${TP} test_count_star`,
    hogql: "SELECT count(*) FROM events",
    clickhouse: `SELECT count(*) FROM events WHERE ${TEAM}`,
  },
  {
    category: "aggregates",
    name: "count(distinct event)",
    source: `${TP} test_count_distinct`,
    hogql: "SELECT count(distinct event) FROM events",
    clickhouse: `SELECT count(DISTINCT events.event) FROM events WHERE ${TEAM}`,
  },
  {
    category: "aggregates",
    name: "countIf(distinct …, like)",
    source: `${TP} test_count_if_distinct`,
    hogql: "SELECT countIf(distinct event, event like '%a%') FROM events",
    clickhouse: `SELECT countIf(DISTINCT events.event, like(events.event, '%a%')) FROM events WHERE ${TEAM}`,
  },
  {
    category: "aggregates",
    name: "uniq of distinct ids and of persons",
    source: `${Q_EXPRESSIONS} (uniq); ${Q_SKILL} ("Use events.person_id for counting unique users")`,
    hogql: "SELECT uniq(distinct_id), uniq(person_id) FROM events",
    clickhouse: `SELECT uniq(events.distinct_id), uniq(events__pdi.person_id) FROM events ${PDI} WHERE ${TEAM}`,
  },
  {
    category: "aggregates",
    name: "avg of a numeric property",
    source: `${Q_EXPRESSIONS} (avg) — adapted: the fixture's purchase amount`,
    hogql: "SELECT avg(properties.amount) FROM events WHERE event = 'purchase'",
    clickhouse: `SELECT avg(${num(ev("amount"))}) FROM events WHERE and(${TEAM}, equals(events.event, 'purchase'))`,
  },
  {
    category: "aggregates",
    name: "quantile(0.9)(x) and median",
    source: `${Q_AGGREGATIONS} (quantile, median)`,
    hogql: "SELECT quantile(0.9)(properties.amount), median(properties.amount) FROM events WHERE event = 'purchase'",
    clickhouse: `SELECT quantile(0.9)(${num(ev("amount"))}), median(${num(ev("amount"))}) FROM events WHERE and(${TEAM}, equals(events.event, 'purchase'))`,
  },
  {
    category: "aggregates",
    name: "sumIf ratio",
    source: `${Q_EXPRESSIONS} (use cases: sumIf(1, properties.$browser = 'Chrome') / sumIf(…))`,
    hogql: "SELECT sumIf(1, properties.$browser = 'Chrome') / sumIf(1, properties.$browser = 'Safari' or properties.$browser = 'Chrome') FROM events",
    clickhouse: `SELECT divide(sumIf(1, ifNull(equals(${ev("$browser")}, 'Chrome'), 0)), sumIf(1, or(ifNull(equals(${ev("$browser")}, 'Safari'), 0), ifNull(equals(${ev("$browser")}, 'Chrome'), 0)))) FROM events WHERE ${TEAM}`,
  },
  {
    category: "aggregates",
    name: "countIf per event",
    source: `${Q_AGGREGATIONS} (countIf)`,
    hogql: "SELECT countIf(event = '$pageview'), countIf(event = 'purchase') FROM events",
    clickhouse: `SELECT countIf(equals(events.event, '$pageview')), countIf(equals(events.event, 'purchase')) FROM events WHERE ${TEAM}`,
  },
  {
    category: "aggregates",
    name: "sum by a person property",
    source: `${Q_EXPRESSIONS} (sum, person.properties) — adapted: revenue by plan`,
    hogql: "SELECT person.properties.plan AS plan, sum(properties.amount) AS revenue FROM events WHERE event = 'purchase' GROUP BY plan ORDER BY revenue DESC",
    clickhouse: `SELECT ${personProp("plan")} AS plan, sum(${num(ev("amount"))}) AS revenue FROM events ${PERSON} WHERE and(${TEAM}, equals(events.event, 'purchase')) GROUP BY plan ORDER BY revenue DESC`,
    columns: ["plan", "revenue"],
  },
  {
    category: "aggregates",
    name: "occurrences, sessions, users, first and last seen",
    source: `${TQ} test_clickhouse_timestamp_handling — adapted: no issue_id; $pageview instead of $exception; no volume arrays`,
    hogql:
      "SELECT count(DISTINCT uuid) AS occurrences, count(DISTINCT nullIf($session_id, '')) AS sessions, count(DISTINCT distinct_id) AS users, max(timestamp) AS last_seen, min(timestamp) AS first_seen FROM events WHERE event = '$pageview'",
    clickhouse: `SELECT count(DISTINCT events.uuid), count(DISTINCT nullIf(events.\`$session_id\`, '')), count(DISTINCT events.distinct_id), ${iso(`max(${TS})`)}, ${iso(`min(${TS})`)} FROM events WHERE and(${TEAM}, equals(events.event, '$pageview'))`,
    columns: ["occurrences", "sessions", "users", "last_seen", "first_seen"],
  },
];

const time: CorpusCase[] = [
  {
    category: "time",
    name: "toDate grouping with addDays(today(), -10) and HAVING",
    source: `${TQ} test_hogql_groupby_unnecessary_ifnull — adapted: having cnt > 5, ORDER BY added, limit 10`,
    hogql: "select toDate(timestamp) as timestamp, count() as cnt from events where timestamp >= addDays(today(), -10) group by timestamp having cnt > 5 order by timestamp limit 10",
    clickhouse: `SELECT toString(toDate(${TS})) AS day, count() AS cnt FROM events WHERE and(${TEAM}, greaterOrEquals(toDate(${TS}), addDays(toDate('2024-03-08'), -10))) GROUP BY toDate(${TS}) HAVING greater(cnt, 5) ORDER BY toDate(${TS}) ASC LIMIT 10`,
    columns: ["timestamp", "cnt"],
  },
  {
    category: "time",
    name: "toStartOfDay buckets",
    source: `${Q_EXPRESSIONS} (binning events by time) — adapted: a daily count`,
    hogql: "SELECT toStartOfDay(timestamp) AS day, count() FROM events GROUP BY day ORDER BY day",
    clickhouse: `SELECT ${iso(`toStartOfDay(${TS})`)}, count() FROM events WHERE ${TEAM} GROUP BY toStartOfDay(${TS}) ORDER BY toStartOfDay(${TS}) ASC`,
  },
  {
    category: "time",
    name: "toStartOfWeek(timestamp) == toStartOfWeek(now())",
    source: `${Q_DATE_FILTERS} (weekly reports)`,
    hogql: "SELECT count() FROM events WHERE toStartOfWeek(timestamp) == toStartOfWeek(now())",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, equals(toStartOfWeek(${TS}), toStartOfWeek(${NOW})))`,
  },
  {
    category: "time",
    name: "weekly active users, Monday weeks",
    source: `${Q_SKILL} (weekly active users; toStartOfWeek(timestamp, 1) for Monday start) — adapted: mode 1, no 8-week filter`,
    hogql: "SELECT toStartOfWeek(timestamp, 1) AS week, count(DISTINCT person_id) AS users FROM events WHERE event = '$pageview' GROUP BY week ORDER BY week DESC",
    clickhouse: `SELECT toString(toStartOfWeek(${TS}, 1)) AS week, count(DISTINCT events__pdi.person_id) FROM events ${PDI} WHERE and(${TEAM}, equals(events.event, '$pageview')) GROUP BY toStartOfWeek(${TS}, 1) ORDER BY toStartOfWeek(${TS}, 1) DESC`,
  },
  {
    category: "time",
    name: "toStartOfInterval 6-hour buckets",
    source: `${Q_FUNCTIONS} (toStartOfInterval) — adapted: purchases per 6 hours`,
    hogql: "SELECT toStartOfInterval(timestamp, toIntervalHour(6)) AS bucket, count() FROM events WHERE event = 'purchase' GROUP BY bucket ORDER BY bucket",
    clickhouse: `SELECT ${iso(`toStartOfInterval(${TS}, toIntervalHour(6))`)}, count() FROM events WHERE and(${TEAM}, equals(events.event, 'purchase')) GROUP BY toStartOfInterval(${TS}, toIntervalHour(6)) ORDER BY toStartOfInterval(${TS}, toIntervalHour(6)) ASC`,
  },
  {
    category: "time",
    name: "dateDiff('day', timestamp, now()) > 3",
    source: `${Q_DATE_FILTERS} (relative time filters: dateDiff('day', timestamp, now()) > 5) — adapted: > 3`,
    hogql: "SELECT count() FROM events WHERE dateDiff('day', timestamp, now()) > 3",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, greater(dateDiff('day', ${TS}, ${NOW}), 3))`,
  },
  {
    category: "time",
    name: "timestamp >= now() - INTERVAL 2 DAY",
    source: `${TQ} test_hogql_proper_ifnull (timestamp >= now() - INTERVAL 30 DAY) — adapted: 2 days`,
    hogql: "SELECT count() FROM events WHERE timestamp >= now() - INTERVAL 2 DAY",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, greaterOrEquals(${TS}, minus(${NOW}, toIntervalDay(2))))`,
  },
  {
    category: "time",
    name: "toHour in another time zone",
    source: `${Q_EXPRESSIONS} (toHour); ${Q_FUNCTIONS} (toTimeZone) — adapted: signups by Tokyo hour`,
    hogql: "SELECT toHour(toTimeZone(timestamp, 'Asia/Tokyo')) AS hour, count() FROM events WHERE event = 'signup' GROUP BY hour ORDER BY hour",
    clickhouse: `SELECT toHour(toTimeZone(${TS}, 'Asia/Tokyo')) AS hour, count() FROM events WHERE and(${TEAM}, equals(events.event, 'signup')) GROUP BY hour ORDER BY hour ASC`,
  },
  {
    category: "time",
    name: "formatDateTime",
    source: `${Q_FUNCTIONS} (formatDateTime) — adapted: purchase times`,
    hogql: "SELECT formatDateTime(timestamp, '%Y-%m-%d %H:%i') FROM events WHERE event = 'purchase' ORDER BY timestamp",
    clickhouse: `SELECT formatDateTime(${TS}, '%Y-%m-%d %H:%i') FROM events WHERE and(${TEAM}, equals(events.event, 'purchase')) ORDER BY ${TS} ASC`,
  },
  {
    category: "time",
    name: "weekdays only (toDayOfWeek)",
    source: `${Q_DATE_FILTERS} (toDayOfWeek(timestamp) != 6 and toDayOfWeek(timestamp) != 7)`,
    hogql: "SELECT count() FROM events WHERE toDayOfWeek(timestamp) != 6 and toDayOfWeek(timestamp) != 7",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, notEquals(toDayOfWeek(${TS}), 6), notEquals(toDayOfWeek(${TS}), 7))`,
  },
  {
    category: "time",
    name: "events between two toDateTime instants",
    source: `${Q_DATE_FILTERS} (events from a specific time range) — adapted: the fixture's dates`,
    hogql: "SELECT count() FROM events WHERE toDateTime('2024-03-04 09:26:00') < timestamp and timestamp < toDateTime('2024-03-05 14:34:00')",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, less(toDateTime64('2024-03-04 09:26:00.000000', 6, 'UTC'), ${TS}), less(${TS}, toDateTime64('2024-03-05 14:34:00.000000', 6, 'UTC')))`,
  },
  {
    category: "time",
    name: "fromUnixTimestamp",
    source: `${Q_DATE_FILTERS} (fromUnixTimestamp(1674259200) < timestamp) — adapted: 1709712000 = 2024-03-06 08:00 UTC`,
    hogql: "SELECT count() FROM events WHERE fromUnixTimestamp(1709712000) < timestamp",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, less(fromUnixTimestamp(1709712000), ${TS}))`,
  },
];

const strings: CorpusCase[] = [
  {
    category: "strings",
    name: "extract a query parameter",
    source: `${Q_EXPRESSIONS} (extract(properties.$current_url, 'ref=([^&]*)'))`,
    hogql: "SELECT extract(properties.$current_url, 'ref=([^&]*)') AS ref, count() FROM events WHERE event = '$pageview' GROUP BY ref ORDER BY ref",
    clickhouse: `SELECT extract(${ev("$current_url")}, 'ref=([^&]*)') AS ref, count() FROM events WHERE and(${TEAM}, equals(events.event, '$pageview')) GROUP BY ref ORDER BY ref ASC`,
  },
  {
    category: "strings",
    name: "replaceOne the host away",
    source: `${Q_EXPRESSIONS} (replaceOne(properties.$current_url, 'https://us.posthog.com', '/')) — adapted: the fixture's host`,
    hogql: "SELECT replaceOne(properties.$current_url, 'https://shop.example.com', '') AS path, count() FROM events WHERE event = '$pageleave' GROUP BY path ORDER BY path",
    clickhouse: `SELECT replaceOne(${ev("$current_url")}, 'https://shop.example.com', '') AS path, count() FROM events WHERE and(${TEAM}, equals(events.event, '$pageleave')) GROUP BY path ORDER BY path ASC`,
  },
  {
    category: "strings",
    name: "substring",
    source: `${Q_EXPRESSIONS} (substring(s, start)) — adapted: a prefix of distinct_id`,
    hogql: "SELECT substring(distinct_id, 1, 3) AS prefix, count() FROM events GROUP BY prefix ORDER BY prefix",
    clickhouse: `SELECT substring(events.distinct_id, 1, 3) AS prefix, count() FROM events WHERE ${TEAM} GROUP BY prefix ORDER BY prefix ASC`,
  },
  {
    category: "strings",
    name: "startsWith",
    source: `${Q_FUNCTIONS} (startsWith) — adapted: blog pages`,
    hogql: "SELECT count() FROM events WHERE startsWith(properties.$pathname, '/blog')",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, ifNull(startsWith(${ev("$pathname")}, '/blog'), 0))`,
  },
  {
    category: "strings",
    name: "match a regular expression",
    source: `${Q_EXPRESSIONS} (match(value, regexp))`,
    hogql: "SELECT count() FROM events WHERE match(properties.$current_url, '/(pricing|products)')",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, ifNull(match(${ev("$current_url")}, '/(pricing|products)'), 0))`,
  },
  {
    category: "strings",
    name: "lower",
    source: `${Q_FUNCTIONS} (lower) — adapted: browsers lower-cased`,
    hogql: "SELECT lower(properties.$browser) AS browser, count() FROM events GROUP BY browser ORDER BY browser",
    clickhouse: `SELECT lower(${ev("$browser")}) AS browser, count() FROM events WHERE ${TEAM} GROUP BY browser ORDER BY browser ASC`,
  },
  {
    category: "strings",
    name: "concat with a null argument",
    source: `${Q_EXPRESSIONS} (concat(properties.$os_name, ' - ', properties.$os_version)) — adapted: $browser and $pathname, cat's events`,
    hogql: "SELECT concat(properties.$browser, ' - ', properties.$pathname) AS b, count() FROM events WHERE distinct_id = 'cat' GROUP BY b ORDER BY b",
    clickhouse: `SELECT concat(ifNull(toString(${ev("$browser")}), ''), ' - ', ifNull(toString(${ev("$pathname")}), '')) AS b, count() FROM events WHERE and(${TEAM}, equals(events.distinct_id, 'cat')) GROUP BY b ORDER BY b ASC`,
  },
  {
    category: "strings",
    name: "splitByChar(…)[i] over ifNull",
    source: `${TQ} test_hogql_proper_ifnull (splitByChar('.', ifNull(latest_os_version, ''))[1]) — adapted: the path's first segment`,
    hogql: "SELECT splitByChar('/', ifNull(properties.$pathname, ''))[2] AS section, count() FROM events GROUP BY section ORDER BY section",
    clickhouse: `SELECT arrayElement(splitByChar('/', ifNull(${ev("$pathname")}, '')), 2) AS section, count() FROM events WHERE ${TEAM} GROUP BY section ORDER BY section ASC`,
  },
  {
    category: "strings",
    name: "LIKE",
    source: `${Q_EXPRESSIONS} ((properties.$current_url LIKE '%/blog%'))`,
    hogql: "SELECT count() FROM events WHERE (properties.$current_url LIKE '%/blog%')",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, ifNull(like(${ev("$current_url")}, '%/blog%'), 0))`,
  },
  {
    category: "strings",
    name: "NOT LIKE keeps rows without the property",
    source: `${Q_TIME_ON_PAGE} (properties.$current_url NOT LIKE '%?%'); ${TQ} test_null_equality (null not like '2' is 1)`,
    hogql: "SELECT count() FROM events WHERE properties.$current_url NOT LIKE '%?%'",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, ifNull(notLike(${ev("$current_url")}, '%?%'), 1))`,
  },
];

const conditionals: CorpusCase[] = [
  {
    category: "conditionals",
    name: "multiIf breakdown",
    source: `${Q_DOCS_SQL} (multiIf(properties.$os == 'Android', 'mobile', properties.$os == 'iOS', 'mobile', 'desktop')) — adapted: $os → $browser`,
    hogql: "SELECT multiIf(properties.$browser == 'Safari', 'mobile', properties.$browser == 'Edge', 'mobile', 'desktop') AS device, count() FROM events GROUP BY device ORDER BY device",
    clickhouse: `SELECT multiIf(ifNull(equals(${ev("$browser")}, 'Safari'), 0), 'mobile', ifNull(equals(${ev("$browser")}, 'Edge'), 0), 'mobile', 'desktop') AS device, count() FROM events WHERE ${TEAM} GROUP BY device ORDER BY device ASC`,
  },
  {
    category: "conditionals",
    name: "multiIf on the hour (as the docs write it)",
    source: `${Q_EXPRESSIONS} (multiIf(5 >= toHour(timestamp) and toHour(timestamp) < 12, 'morning', …))`,
    hogql: "SELECT multiIf(5 >= toHour(timestamp) and toHour(timestamp) < 12, 'morning', 12 >= toHour(timestamp) and toHour(timestamp) < 17, 'afternoon', 'night') AS part, count() FROM events GROUP BY part ORDER BY part",
    clickhouse: `SELECT multiIf(and(greaterOrEquals(5, toHour(${TS})), less(toHour(${TS}), 12)), 'morning', and(greaterOrEquals(12, toHour(${TS})), less(toHour(${TS}), 17)), 'afternoon', 'night') AS part, count() FROM events WHERE ${TEAM} GROUP BY part ORDER BY part ASC`,
  },
  {
    category: "conditionals",
    name: "if on a numeric property",
    source: `${Q_EXPRESSIONS} (if(cond, then, else)) — adapted: big and small purchases`,
    hogql: "SELECT if(properties.amount > 100, 'big', 'small') AS size, count() FROM events WHERE event = 'purchase' GROUP BY size ORDER BY size",
    clickhouse: `SELECT if(ifNull(greater(${num(ev("amount"))}, 100), 0), 'big', 'small') AS size, count() FROM events WHERE and(${TEAM}, equals(events.event, 'purchase')) GROUP BY size ORDER BY size ASC`,
  },
  {
    category: "conditionals",
    name: "coalesce a person property",
    source: `${TP} test_values (coalesce(4.2, 5, 'lol', 'hoo')) — adapted: plan or 'none'`,
    hogql: "SELECT coalesce(person.properties.plan, 'none') AS plan, count() FROM events GROUP BY plan ORDER BY plan",
    clickhouse: `SELECT coalesce(${personProp("plan")}, 'none') AS plan, count() FROM events ${PERSON} WHERE ${TEAM} GROUP BY plan ORDER BY plan ASC`,
  },
  {
    category: "conditionals",
    name: "NOT (… OR …)",
    source: `${TP} test_logic (event or not timestamp → or(event, not(timestamp))) — adapted: neither pageview nor pageleave`,
    hogql: "SELECT count() FROM events WHERE NOT (event = '$pageview' OR event = '$pageleave')",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, not(or(equals(events.event, '$pageview'), equals(events.event, '$pageleave'))))`,
  },
  {
    category: "conditionals",
    name: "?? (nullish coalescing)",
    source: `${TQ} test_nullish_coalescing; ${Q_ARRAYS} (properties.$active_feature_flags ?? '[]') — adapted: browser or 'unknown'`,
    hogql: "SELECT properties.$browser ?? 'unknown' AS browser, count() FROM events GROUP BY browser ORDER BY browser",
    clickhouse: `SELECT ifNull(${ev("$browser")}, 'unknown') AS browser, count() FROM events WHERE ${TEAM} GROUP BY browser ORDER BY browser ASC`,
  },
  {
    category: "conditionals",
    name: "NOT IN keeps NULLs (transform_null_in)",
    source: `${TP} test_comparisons (event not in 'E' → not(in(…))); ${Q_EXPRESSIONS} (in(value, set))`,
    hogql: "SELECT count() FROM events WHERE properties.$browser NOT IN ('Chrome', 'Safari')",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, or(isNull(${ev("$browser")}), notIn(${ev("$browser")}, tuple('Chrome', 'Safari'))))`,
  },
];

const arrays: CorpusCase[] = [
  {
    category: "arrays",
    name: "arrayMap lambda",
    source: `${TQ} test_hogql_lambdas`,
    hogql: "SELECT arrayMap(x -> x * 2, [1, 2, 3]), 1",
    clickhouse: "SELECT arrayMap(x -> multiply(x, 2), [1, 2, 3]), 1",
  },
  {
    category: "arrays",
    name: "array literal and x[i]",
    source: `${TQ} test_hogql_arrays`,
    hogql: "SELECT [1, 2, 3], [10,11,12][1]",
    clickhouse: "SELECT [1, 2, 3], arrayElement([10, 11, 12], 1)",
  },
  {
    category: "arrays",
    name: "arrayFilter lambda over splitByChar",
    source: `${Q_ARRAYS} (splitByChar to get an array, then filter it) — adapted: bob's non-empty path segments`,
    hogql: "SELECT arrayFilter(x -> x != '', splitByChar('/', ifNull(properties.$pathname, ''))) AS parts FROM events WHERE event = '$pageview' AND distinct_id = 'bob' ORDER BY timestamp",
    clickhouse: `SELECT arrayFilter(x -> notEquals(x, ''), splitByChar('/', ifNull(${ev("$pathname")}, ''))) AS parts FROM events WHERE and(${TEAM}, equals(events.event, '$pageview'), equals(events.distinct_id, 'bob')) ORDER BY ${TS} ASC`,
  },
  {
    category: "arrays",
    name: "arrayJoin a JSON array property",
    source: `${Q_ARRAYS} (arrayJoin(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]')))`,
    hogql: "SELECT arrayJoin(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]')) AS flag, count() FROM events GROUP BY flag ORDER BY flag",
    clickhouse: `SELECT arrayJoin(JSONExtractArrayRaw(ifNull(${ev("$active_feature_flags")}, '[]'))) AS flag, count() FROM events WHERE ${TEAM} GROUP BY flag ORDER BY flag ASC`,
  },
  {
    category: "arrays",
    name: "notEmpty and has over a JSON array",
    source: `${Q_ARRAYS} (notEmpty(JSONExtractArrayRaw(…)), has(arr, 'test'))`,
    hogql:
      "SELECT countIf(notEmpty(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]'))), countIf(has(JSONExtractArrayRaw(properties.$active_feature_flags ?? '[]'), '\"new-checkout\"')) FROM events",
    clickhouse: `SELECT countIf(notEmpty(JSONExtractArrayRaw(ifNull(${ev("$active_feature_flags")}, '[]')))), countIf(has(JSONExtractArrayRaw(ifNull(${ev("$active_feature_flags")}, '[]')), '"new-checkout"')) FROM events WHERE ${TEAM}`,
  },
  {
    category: "arrays",
    name: "has(groupArray(event), …) in HAVING",
    source: `${Q_ARRAYS} (has(arr, 'test')) — adapted: distinct ids that purchased`,
    hogql: "SELECT distinct_id FROM events GROUP BY distinct_id HAVING has(groupArray(event), 'purchase') ORDER BY distinct_id",
    clickhouse: `SELECT events.distinct_id FROM events WHERE ${TEAM} GROUP BY events.distinct_id HAVING has(groupArray(events.event), 'purchase') ORDER BY events.distinct_id ASC`,
  },
  {
    category: "arrays",
    name: "nested property access by index",
    source: `${TQ} test_property_access_with_arrays (properties.array_str[1], properties.array_str.1, properties.obj_array.id[1]) — adapted: tags and address on plan_changed`,
    hogql: "SELECT properties.tags[1], properties.tags.2, properties.address.city, properties.address.zips[1] FROM events WHERE event = 'plan_changed' ORDER BY timestamp",
    clickhouse: `SELECT ${ev("tags", 1)}, ${ev("tags", 2)}, ${ev("address", "city")}, ${ev("address", "zips", 1)} FROM events WHERE and(${TEAM}, equals(events.event, 'plan_changed')) ORDER BY ${TS} ASC`,
  },
  {
    category: "arrays",
    name: "pivot with groupArray of tuples, sumMap and tuple access",
    source: `${TQ} test_tuple_access — adapted: properties.index → properties.$browser`,
    hogql:
      "select col_a, arrayZip( (sumMap( g.1, g.2 ) as x).1, x.2) as r from (select col_a, groupArray( (col_b, col_c) ) as g from (SELECT properties.$browser as col_a, event as col_b, count() as col_c FROM events GROUP BY properties.$browser, event) group by col_a) group by col_a ORDER BY col_a",
    clickhouse: `SELECT col_a, arrayZip(tupleElement(sumMap(tupleElement(g, 1), tupleElement(g, 2)) AS x, 1), tupleElement(x, 2)) AS r FROM (SELECT col_a, groupArray(tuple(col_b, col_c)) AS g FROM (SELECT ${ev("$browser")} AS col_a, events.event AS col_b, count() AS col_c FROM events WHERE ${TEAM} GROUP BY col_a, events.event) GROUP BY col_a) GROUP BY col_a ORDER BY col_a ASC`,
  },
];

const joins: CorpusCase[] = [
  {
    category: "joins",
    name: "explicit LEFT JOINs to person_distinct_ids and persons",
    source: `${TQ} test_query_joins_simple — adapted: sneaky_mail → email, WHERE/ORDER BY added`,
    hogql:
      "SELECT event, timestamp, pdi.distinct_id, p.id, p.properties.email FROM events e LEFT JOIN person_distinct_ids pdi ON pdi.distinct_id = e.distinct_id LEFT JOIN persons p ON p.id = pdi.person_id WHERE e.event = 'signup' ORDER BY e.timestamp",
    clickhouse: `SELECT e.event, ${iso(tz("e.timestamp"))}, pdi.distinct_id, toString(p.id), ${prop("p", "email")} FROM events AS e LEFT JOIN (SELECT distinct_id, person_id FROM person_distinct_ids WHERE equals(team_id, 1)) AS pdi ON equals(pdi.distinct_id, e.distinct_id) LEFT JOIN (SELECT id, properties FROM persons WHERE equals(team_id, 1)) AS p ON equals(p.id, pdi.person_id) WHERE and(equals(e.team_id, 1), equals(e.event, 'signup')) ORDER BY ${tz("e.timestamp")} ASC`,
    columns: ["event", "timestamp", "distinct_id", "id", "email"],
  },
  {
    category: "joins",
    name: "implicit pdi.* on events",
    source: `${TQ} test_query_joins_events_pdi — adapted: WHERE/ORDER BY instead of LIMIT 10`,
    hogql: "SELECT event, timestamp, pdi.distinct_id, pdi.person_id FROM events WHERE event = 'purchase' ORDER BY timestamp",
    clickhouse: `SELECT events.event, ${iso(TS)}, events__pdi.distinct_id, toString(events__pdi.person_id) FROM events ${PDI} WHERE and(${TEAM}, equals(events.event, 'purchase')) ORDER BY ${TS} ASC`,
    columns: ["event", "timestamp", "distinct_id", "person_id"],
  },
  {
    category: "joins",
    name: "pdi.person.created_at from person_distinct_ids",
    source: `${TQ} test_query_joins_pdi_persons — adapted: ORDER BY instead of LIMIT 10`,
    hogql: "SELECT pdi.distinct_id, pdi.person.created_at FROM person_distinct_ids pdi ORDER BY pdi.distinct_id",
    clickhouse: `SELECT pdi.distinct_id, ${iso(tz("pdi__person.created_at"))} FROM person_distinct_ids AS pdi LEFT JOIN (SELECT id, created_at FROM persons WHERE equals(team_id, 1)) AS pdi__person ON equals(pdi.person_id, pdi__person.id) WHERE equals(pdi.team_id, 1) ORDER BY pdi.distinct_id ASC`,
  },
  {
    category: "joins",
    name: "pdi.person.properties from person_distinct_ids",
    source: `${TQ} test_query_joins_pdi_person_properties — adapted: sneaky_mail → email, ORDER BY`,
    hogql: "SELECT pdi.distinct_id, pdi.person.properties.email FROM person_distinct_ids pdi ORDER BY pdi.distinct_id",
    clickhouse: `SELECT pdi.distinct_id, ${prop("pdi__person", "email")} FROM person_distinct_ids AS pdi LEFT JOIN (SELECT id, properties FROM persons WHERE equals(team_id, 1)) AS pdi__person ON equals(pdi.person_id, pdi__person.id) WHERE equals(pdi.team_id, 1) ORDER BY pdi.distinct_id ASC`,
    columns: ["distinct_id", "email"],
  },
  {
    category: "joins",
    name: "events JOIN persons ON person_id",
    source: `${TQ} test_query_joins_events_first_to_persons — adapted: 'pageview' → 'signup', ORDER BY`,
    hogql: "SELECT events.event, persons.properties.email FROM events JOIN persons ON events.person_id = persons.id WHERE events.event = 'signup' ORDER BY events.timestamp",
    clickhouse: `SELECT events.event, ${prop("persons", "email")} FROM events ${PDI} INNER JOIN (SELECT id, properties FROM persons WHERE equals(team_id, 1)) AS persons ON equals(events__pdi.person_id, persons.id) WHERE and(${TEAM}, equals(events.event, 'signup')) ORDER BY ${TS} ASC`,
  },
  {
    category: "joins",
    name: "persons JOIN events",
    source: `${TQ} test_query_joins_persons_to_events — adapted: WHERE/ORDER BY instead of LIMIT 10`,
    hogql: "SELECT persons.id, events.event FROM persons JOIN events ON persons.id = events.person_id WHERE events.event = 'signup' ORDER BY events.timestamp",
    clickhouse: `SELECT toString(persons.id), events.event FROM persons INNER JOIN (SELECT events.event AS event, events.timestamp AS timestamp, events__pdi.person_id AS person_id FROM events ${PDI} WHERE ${TEAM}) AS events ON equals(persons.id, events.person_id) WHERE and(equals(persons.team_id, 1), equals(events.event, 'signup')) ORDER BY ${tz("events.timestamp")} ASC`,
  },
  {
    category: "joins",
    name: "events self-join on person_id",
    source: `${TQ} test_query_joins_lazy_on_both_sides — adapted: pageview/click → signup/purchase`,
    hogql: "SELECT e1.event, e2.event FROM events e1 JOIN events e2 ON e1.person_id = e2.person_id WHERE e1.event = 'signup' AND e2.event = 'purchase'",
    clickhouse:
      "SELECT e1.event, e2.event FROM (SELECT events.event AS event, events__pdi.person_id AS person_id FROM events LEFT JOIN (SELECT distinct_id, person_id FROM person_distinct_ids WHERE equals(team_id, 1)) AS events__pdi ON equals(events.distinct_id, events__pdi.distinct_id) WHERE equals(events.team_id, 1)) AS e1 INNER JOIN (SELECT events.event AS event, events__pdi.person_id AS person_id FROM events LEFT JOIN (SELECT distinct_id, person_id FROM person_distinct_ids WHERE equals(team_id, 1)) AS events__pdi ON equals(events.distinct_id, events__pdi.distinct_id) WHERE equals(events.team_id, 1)) AS e2 ON equals(e1.person_id, e2.person_id) WHERE and(equals(e1.event, 'signup'), equals(e2.event, 'purchase'))",
    unordered: true,
  },
  {
    category: "joins",
    name: "s.pdi.person.properties in GROUP BY",
    source: `${TQ} test_query_joins_events_person_properties_in_aggregration — adapted: sneaky_mail → email, ORDER BY instead of LIMIT 10`,
    hogql: "SELECT s.pdi.person.properties.email, count() FROM events s GROUP BY s.pdi.person.properties.email ORDER BY count() DESC",
    clickhouse: `SELECT ${prop("s__pdi__person", "email")} AS email, count() FROM events AS s LEFT JOIN (SELECT distinct_id, person_id FROM person_distinct_ids WHERE equals(team_id, 1)) AS s__pdi ON equals(s.distinct_id, s__pdi.distinct_id) LEFT JOIN (SELECT id, properties FROM persons WHERE equals(team_id, 1)) AS s__pdi__person ON equals(s__pdi.person_id, s__pdi__person.id) WHERE equals(s.team_id, 1) GROUP BY email ORDER BY count() DESC`,
  },
  {
    category: "joins",
    name: "poe.properties (person on events)",
    source: `${TQ} test_select_person_on_events — adapted: sneaky_mail → email, ORDER BY instead of LIMIT 10 (the mirror's persons stand for the properties at event time)`,
    hogql: "SELECT poe.properties.email, count() FROM events s GROUP BY poe.properties.email ORDER BY count() DESC",
    clickhouse: `SELECT ${prop("s__pdi__person", "email")} AS email, count() FROM events AS s LEFT JOIN (SELECT distinct_id, person_id FROM person_distinct_ids WHERE equals(team_id, 1)) AS s__pdi ON equals(s.distinct_id, s__pdi.distinct_id) LEFT JOIN (SELECT id, properties FROM persons WHERE equals(team_id, 1)) AS s__pdi__person ON equals(s__pdi.person_id, s__pdi__person.id) WHERE equals(s.team_id, 1) GROUP BY email ORDER BY count() DESC`,
  },
  {
    category: "joins",
    name: "events JOIN groups ON $group_0",
    source: `${Q_SKILL} (Captured data: groups; Group N:1 GroupTypeMapping by group_type_index) — adapted: purchases with their company's name`,
    hogql: "SELECT e.event, g.properties.name FROM events e JOIN groups g ON e.$group_0 = g.key WHERE g.index = 0 AND e.event = 'purchase' ORDER BY e.timestamp",
    clickhouse: `SELECT e.event, ${prop("g", "name")} FROM events AS e INNER JOIN (SELECT \`index\`, key, properties FROM groups WHERE equals(team_id, 1)) AS g ON equals(e.\`$group_0\`, g.key) WHERE and(equals(e.team_id, 1), equals(g.\`index\`, 0), equals(e.event, 'purchase')) ORDER BY ${tz("e.timestamp")} ASC`,
  },
  {
    category: "joins",
    name: "implicit group_0.properties on events",
    source: "PostHog/posthog posthog/hogql/database/schema/events.py (group_0 lazy join to groups) — the field path HogQL adds for group type 0",
    hogql: "SELECT group_0.properties.name AS company, count() FROM events GROUP BY company ORDER BY company",
    clickhouse: `SELECT ${prop("events__group_0", "name")} AS company, count() FROM events LEFT JOIN (SELECT key, properties FROM groups WHERE and(equals(team_id, 1), equals(\`index\`, 0))) AS events__group_0 ON equals(events.\`$group_0\`, events__group_0.key) WHERE ${TEAM} GROUP BY company ORDER BY company ASC`,
  },
];

const sessions: CorpusCase[] = [
  {
    category: "sessions",
    name: "session.session_id and session.$session_duration on events",
    source: `${TQ} test_events_sessions_table — adapted: distinct_id = 'cat' instead of the placeholder`,
    hogql: "SELECT session.session_id, session.$session_duration from events WHERE distinct_id = 'cat' order by timestamp",
    clickhouse: `SELECT events__session.session_id, events__session.\`$session_duration\` FROM events ${SESSION} WHERE and(${TEAM}, equals(events.distinct_id, 'cat')) ORDER BY ${TS} ASC`,
    columns: ["session_id", "$session_duration"],
  },
  {
    category: "sessions",
    name: "the sessions table: count, average duration, bounces",
    source: "https://posthog.com/docs/data/sessions (session properties: $session_duration, $is_bounce) — adapted: an aggregate over the sessions table",
    hogql: "SELECT count(), avg($session_duration), countIf($is_bounce) FROM sessions",
    clickhouse: "SELECT count(), avg(sessions.`$session_duration`), countIf(sessions.`$is_bounce`) FROM sessions WHERE equals(sessions.team_id, 1)",
  },
  {
    category: "sessions",
    name: "entry URL of each purchase's session",
    source: `${TQ} test_hogql_query_session_filters ($entry_current_url) — adapted: read through events.session`,
    hogql: "SELECT session.$entry_current_url AS entry, count() FROM events WHERE event = 'purchase' GROUP BY entry ORDER BY entry",
    clickhouse: `SELECT events__session.\`$entry_current_url\` AS entry, count() FROM events ${SESSION} WHERE and(${TEAM}, equals(events.event, 'purchase')) GROUP BY entry ORDER BY entry ASC`,
  },
  {
    category: "sessions",
    name: "events.session.id",
    source: `${TQ} test_metadata_handles_lazy_joins — adapted: WHERE/ORDER BY added`,
    hogql: "SELECT events.session.id FROM events WHERE event = 'signup' ORDER BY timestamp",
    clickhouse: `SELECT events__session.session_id FROM events ${SESSION} WHERE and(${TEAM}, equals(events.event, 'signup')) ORDER BY ${TS} ASC`,
  },
  {
    category: "sessions",
    name: "$session_id on events",
    source: `${TQ} test_clickhouse_timestamp_handling (count(DISTINCT nullIf($session_id, ''))) — adapted: sessions per distinct id`,
    hogql: "SELECT distinct_id, count(DISTINCT $session_id) FROM events WHERE $session_id != '' GROUP BY distinct_id ORDER BY distinct_id",
    clickhouse: `SELECT events.distinct_id, count(DISTINCT events.\`$session_id\`) FROM events WHERE and(${TEAM}, notEquals(events.\`$session_id\`, '')) GROUP BY events.distinct_id ORDER BY events.distinct_id ASC`,
  },
  {
    category: "sessions",
    name: "sessions with a session property filter",
    source: `${TQ} test_hogql_query_session_filters — adapted: SessionPropertyFilter on the fixture's blog entry URL, ORDER BY`,
    hogql: "SELECT session_id, $entry_current_url from sessions WHERE {filters} ORDER BY session_id",
    filters: { properties: [{ key: "$entry_current_url", operator: "exact", value: "https://blog.example.com/", type: "session" }] },
    clickhouse: "SELECT sessions.session_id, sessions.`$entry_current_url` FROM sessions WHERE and(equals(sessions.team_id, 1), ifNull(equals(sessions.`$entry_current_url`, 'https://blog.example.com/'), 0)) ORDER BY sessions.session_id ASC",
  },
  {
    category: "sessions",
    name: "sessions with a date range filter",
    source: `${TQ} test_hogql_query_filters_session_date_range — adapted: the fixture's dates, ORDER BY`,
    hogql: "SELECT session_id, $entry_current_url from sessions WHERE {filters} ORDER BY session_id",
    filters: { dateRange: { date_from: "2024-03-07", date_to: "2024-03-08" } },
    clickhouse: `SELECT sessions.session_id, sessions.\`$entry_current_url\` FROM sessions WHERE and(equals(sessions.team_id, 1), less(${tz("sessions.`$start_timestamp`")}, toDateTime64('2024-03-08 00:00:00.000000', 6, 'UTC')), greaterOrEquals(${tz("sessions.`$start_timestamp`")}, toDateTime64('2024-03-07 00:00:00.000000', 6, 'UTC'))) ORDER BY sessions.session_id ASC`,
  },
];

const FIRST_PAGEVIEW = "SELECT properties.$current_url AS current_url, count() AS url_count FROM events WHERE event = '$pageview' AND (distinct_id, timestamp) IN (SELECT distinct_id, min(timestamp) FROM events WHERE event = '$pageview' GROUP BY distinct_id)";
const firstPageviewSql = (extra: string) =>
  `SELECT ${ev("$current_url")} AS current_url, count() AS url_count FROM events WHERE and(${TEAM}, equals(events.event, '$pageview'), in(tuple(events.distinct_id, ${TS}), (SELECT events.distinct_id, min(${TS}) FROM events WHERE and(${TEAM}, equals(events.event, '$pageview')) GROUP BY events.distinct_id))${extra}) GROUP BY current_url ORDER BY url_count DESC, current_url ASC`;

const subqueries: CorpusCase[] = [
  {
    category: "subqueries",
    name: "aggregate over a subquery",
    source: `${TQ} test_subquery — adapted: random_uuid → $browser = 'Chrome', ORDER BY added`,
    hogql: "select cnt, event from (select count() as cnt, event from events where properties.$browser = 'Chrome' group by event) group by cnt, event order by event",
    clickhouse: `SELECT cnt, event FROM (SELECT count() AS cnt, events.event AS event FROM events WHERE and(${TEAM}, ifNull(equals(${ev("$browser")}, 'Chrome'), 0)) GROUP BY events.event) GROUP BY cnt, event ORDER BY event ASC`,
    columns: ["cnt", "event"],
  },
  {
    category: "subqueries",
    name: "aliased subquery with count(*)",
    source: `${TQ} test_subquery_alias — adapted as above`,
    hogql: "select cnt, event from (select count(*) as cnt, event from events where properties.$browser = 'Chrome' group by event) as c group by cnt, event order by event",
    clickhouse: `SELECT c.cnt, c.event FROM (SELECT count(*) AS cnt, events.event AS event FROM events WHERE and(${TEAM}, ifNull(equals(${ev("$browser")}, 'Chrome'), 0)) GROUP BY events.event) AS c GROUP BY c.cnt, c.event ORDER BY c.event ASC`,
  },
  {
    category: "subqueries",
    name: "first pageview URL: (distinct_id, timestamp) IN (SELECT …)",
    source: `${Q_TOUCH} (first pageview); ${Q_DOCS_SQL} (SQL insights example) — adapted: no date filter, current_url as tie-breaker`,
    hogql: `${FIRST_PAGEVIEW} GROUP BY current_url ORDER BY url_count DESC, current_url`,
    clickhouse: firstPageviewSql(""),
  },
  {
    category: "subqueries",
    name: "person_id IN (SELECT id FROM persons …)",
    source: `${Q_SKILL} ("Subqueries as a source or filter"; the IN (SELECT …) example) — adapted: events of pro persons`,
    hogql: "SELECT count() FROM events WHERE person_id IN (SELECT id FROM persons WHERE properties.plan = 'pro')",
    clickhouse: `SELECT count() FROM events ${PDI} WHERE and(${TEAM}, in(events__pdi.person_id, (SELECT persons.id FROM persons WHERE and(equals(persons.team_id, 1), ifNull(equals(${prop("persons", "plan")}, 'pro'), 0)))))`,
  },
  {
    category: "subqueries",
    name: "property IN (SELECT property …) over two time windows",
    source: `${Q_SKILL} (returning browsers: properties['$browser'] IN (SELECT properties['$browser'] …)) — adapted: ORDER BY, counted`,
    hogql:
      "SELECT event, count() FROM events WHERE timestamp >= now() - INTERVAL 1 DAY and properties['$browser'] IN (SELECT properties['$browser'] FROM events WHERE timestamp >= now() - INTERVAL 2 DAY and timestamp < now() - INTERVAL 1 DAY) GROUP BY event ORDER BY event",
    clickhouse: `SELECT events.event, count() FROM events WHERE and(${TEAM}, greaterOrEquals(${TS}, minus(${NOW}, toIntervalDay(1))), in(${ev("$browser")}, (SELECT ${ev("$browser")} FROM events WHERE and(${TEAM}, greaterOrEquals(${TS}, minus(${NOW}, toIntervalDay(2))), less(${TS}, minus(${NOW}, toIntervalDay(1))))))) GROUP BY events.event ORDER BY events.event ASC`,
  },
];

const PIVOT_CTES =
  "WITH PIVOT_TABLE_COL_ABC AS (SELECT properties.$browser as col_a, event as col_b, count() as col_c FROM events GROUP BY properties.$browser, event), PIVOT_FUNCTION_1 AS (select col_a, groupArray( (col_b, col_c) ) as g from PIVOT_TABLE_COL_ABC group by col_a), PIVOT_FUNCTION_2 AS (select col_a, arrayZip( (sumMap( g.1, g.2 ) as x).1, x.2) as r from PIVOT_FUNCTION_1 group by col_a)";
const pivotSql = (extra: string, from: string) =>
  `WITH PIVOT_TABLE_COL_ABC AS (SELECT ${ev("$browser")} AS col_a, events.event AS col_b, count() AS col_c FROM events WHERE ${TEAM} GROUP BY col_a, events.event), PIVOT_FUNCTION_1 AS (SELECT col_a, groupArray(tuple(col_b, col_c)) AS g FROM PIVOT_TABLE_COL_ABC GROUP BY col_a), PIVOT_FUNCTION_2 AS (SELECT col_a, arrayZip(tupleElement(sumMap(tupleElement(g, 1), tupleElement(g, 2)) AS x, 1), tupleElement(x, 2)) AS r FROM PIVOT_FUNCTION_1 GROUP BY col_a)${extra} SELECT * FROM ${from} ORDER BY col_a ASC`;

const ctes: CorpusCase[] = [
  {
    category: "ctes",
    name: "pivot table, one level of CTEs",
    source: `${TQ} test_with_pivot_table_1_level — adapted: properties.index → properties.$browser`,
    hogql: `${PIVOT_CTES} SELECT * FROM PIVOT_FUNCTION_2 ORDER BY col_a`,
    clickhouse: pivotSql("", "PIVOT_FUNCTION_2"),
    columns: ["col_a", "r"],
  },
  {
    category: "ctes",
    name: "pivot table, a CTE over a CTE",
    source: `${TQ} test_with_pivot_table_2_levels — adapted as above`,
    hogql: `${PIVOT_CTES}, final as (select * from PIVOT_FUNCTION_2) SELECT * FROM final ORDER BY col_a`,
    clickhouse: pivotSql(", final AS (SELECT * FROM PIVOT_FUNCTION_2)", "final"),
  },
  {
    category: "ctes",
    name: "latest value per user, share of users (CTEs, argMax, sum(count()) OVER ())",
    source: `${TQ} test_hogql_proper_ifnull — adapted: $os = 'iOS' → $browser = 'Chrome', $os_version → $pathname, versions → path sections`,
    hogql:
      "WITH latest_events AS (SELECT distinct_id, argMax(properties.$pathname, timestamp) AS latest_path FROM events WHERE properties.$browser = 'Chrome' AND timestamp >= now() - INTERVAL 30 DAY GROUP BY distinct_id), sections AS (SELECT distinct_id, latest_path, splitByChar('/', ifNull(latest_path, ''))[2] AS section FROM latest_events) SELECT section, count() AS user_count, round(100 * count() / sum(count()) OVER (), 2) AS percentage FROM sections WHERE section IN ('pricing', 'products', 'signup') GROUP BY section ORDER BY section",
    clickhouse: `WITH latest_events AS (SELECT events.distinct_id AS distinct_id, argMax(${ev("$pathname")}, ${TS}) AS latest_path FROM events WHERE and(${TEAM}, ifNull(equals(${ev("$browser")}, 'Chrome'), 0), greaterOrEquals(${TS}, minus(${NOW}, toIntervalDay(30)))) GROUP BY events.distinct_id), sections AS (SELECT distinct_id, latest_path, arrayElement(splitByChar('/', ifNull(latest_path, '')), 2) AS section FROM latest_events) SELECT section, count() AS user_count, round(divide(multiply(100, count()), sum(count()) OVER ()), 2) AS percentage FROM sections WHERE in(section, tuple('pricing', 'products', 'signup')) GROUP BY section ORDER BY section ASC`,
    columns: ["section", "user_count", "percentage"],
  },
];

const union: CorpusCase[] = [
  {
    category: "union",
    name: "UNION ALL of two selects",
    source: `${TQ} test_hogql_union_all_limits`,
    hogql: "SELECT event FROM events UNION ALL SELECT event FROM events",
    clickhouse: `SELECT events.event FROM events WHERE ${TEAM} LIMIT 100 UNION ALL SELECT events.event FROM events WHERE ${TEAM} LIMIT 100`,
    unordered: true,
  },
  {
    category: "union",
    name: "UNION ALL with an empty side",
    source: `${TP} test_select_union_all`,
    hogql: "SELECT event FROM events UNION ALL SELECT event FROM events WHERE 1 = 2",
    clickhouse: `SELECT events.event FROM events WHERE ${TEAM} UNION ALL SELECT events.event FROM events WHERE and(${TEAM}, equals(1, 2))`,
    unordered: true,
  },
  {
    category: "union",
    name: "nested UNION ALL",
    source: `${TP} test_select_union_all`,
    hogql: "SELECT 1 UNION ALL (SELECT 1 UNION ALL SELECT 1) UNION ALL SELECT 1",
    clickhouse: "SELECT 1 UNION ALL SELECT 1 UNION ALL SELECT 1 UNION ALL SELECT 1",
    unordered: true,
  },
  {
    category: "union",
    name: "UNION ALL in a subquery",
    source: `${TP} test_select_union_all`,
    hogql: "SELECT 1 FROM (SELECT 1 UNION ALL SELECT 1)",
    clickhouse: "SELECT 1 FROM (SELECT 1 UNION ALL SELECT 1)",
  },
];

const window: CorpusCase[] = [
  {
    category: "window",
    name: "groupArray OVER preceding and following frames",
    source: `${TQ} test_window_functions_simple — adapted: dan's events since 03-06`,
    hogql:
      "select distinct_id, timestamp, event, groupArray(event) OVER (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) AS two_before, groupArray(event) OVER (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS two_after from events where timestamp > toDateTime('2024-03-06 00:00:00') and distinct_id like 'dan%' order by distinct_id, timestamp",
    clickhouse: `SELECT events.distinct_id, ${iso(TS)}, events.event, groupArray(events.event) OVER (PARTITION BY events.distinct_id ORDER BY ${TS} ASC ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING) AS two_before, groupArray(events.event) OVER (PARTITION BY events.distinct_id ORDER BY ${TS} ASC ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) AS two_after FROM events WHERE and(${TEAM}, greater(${TS}, toDateTime64('2024-03-06 00:00:00.000000', 6, 'UTC')), like(events.distinct_id, 'dan%')) ORDER BY events.distinct_id ASC, ${TS} ASC`,
    columns: ["distinct_id", "timestamp", "event", "two_before", "two_after"],
  },
  {
    category: "window",
    name: "named windows: row_number, first/last_value, rank, dense_rank",
    source: `${TQ} test_window_functions_with_window — adapted: cat's events`,
    hogql:
      "select distinct_id, timestamp, event, groupArray(event) OVER w1 AS two_before, groupArray(event) OVER w2 AS two_after, row_number() OVER w1 AS rn_1, row_number() OVER w2 AS rn_2, first_value(event) OVER w1 AS first_value_1, last_value(event) OVER w1 AS last_value_1, first_value(event) OVER w2 AS first_value_2, last_value(event) OVER w2 AS last_value_2, rank() OVER w1 AS rank_1, dense_rank() OVER w2 AS rank_2 from events where distinct_id = 'cat' window w1 as (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING), w2 as (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) order by distinct_id, timestamp",
    clickhouse: `SELECT events.distinct_id, ${iso(TS)}, events.event, groupArray(events.event) OVER w1 AS two_before, groupArray(events.event) OVER w2 AS two_after, row_number() OVER w1 AS rn_1, row_number() OVER w2 AS rn_2, first_value(events.event) OVER w1 AS first_value_1, last_value(events.event) OVER w1 AS last_value_1, first_value(events.event) OVER w2 AS first_value_2, last_value(events.event) OVER w2 AS last_value_2, rank() OVER w1 AS rank_1, dense_rank() OVER w2 AS rank_2 FROM events WHERE and(${TEAM}, equals(events.distinct_id, 'cat')) WINDOW w1 AS (PARTITION BY events.distinct_id ORDER BY ${TS} ASC ROWS BETWEEN 2 PRECEDING AND 1 PRECEDING), w2 AS (PARTITION BY events.distinct_id ORDER BY ${TS} ASC ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING) ORDER BY events.distinct_id ASC, ${TS} ASC`,
  },
  {
    category: "window",
    name: "average time on page (first_value OVER w, dateDiff)",
    source: `${Q_TIME_ON_PAGE} (calculating average time on page) — adapted: timestamp > 2024-03-01`,
    hogql:
      "SELECT avg(time_on_page) AS avg_time_on_page FROM (SELECT dateDiff('minute', first_timestamp, next_timestamp) AS time_on_page FROM (SELECT distinct_id, event AS first_event, timestamp AS first_timestamp, first_value(event) OVER w AS next_event, first_value(timestamp) OVER w AS next_timestamp FROM events WHERE timestamp > toDateTime('2024-03-01 00:00:00') AND (event = '$pageview' OR event = '$pageleave') WINDOW w AS (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) ORDER BY distinct_id, timestamp) AS subquery WHERE first_event = '$pageview' AND (next_event = '$pageleave' OR next_event = '$pageview'))",
    clickhouse: `SELECT avg(time_on_page) AS avg_time_on_page FROM (SELECT dateDiff('minute', subquery.first_timestamp, subquery.next_timestamp) AS time_on_page FROM (SELECT events.distinct_id AS distinct_id, events.event AS first_event, ${TS} AS first_timestamp, first_value(events.event) OVER w AS next_event, first_value(${TS}) OVER w AS next_timestamp FROM events WHERE and(${TEAM}, greater(${TS}, toDateTime64('2024-03-01 00:00:00.000000', 6, 'UTC')), or(equals(events.event, '$pageview'), equals(events.event, '$pageleave'))) WINDOW w AS (PARTITION BY events.distinct_id ORDER BY ${TS} ASC ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) ORDER BY events.distinct_id ASC, ${TS} ASC) AS subquery WHERE and(equals(subquery.first_event, '$pageview'), or(equals(subquery.next_event, '$pageleave'), equals(subquery.next_event, '$pageview'))))`,
  },
  {
    category: "window",
    name: "last pageview before signup (first_value OVER w)",
    source: `${Q_TOUCH} (last pageview event) — adapted: 'user signed up' → 'signup', 2024 dates, current_url as tie-breaker`,
    hogql:
      "SELECT current_url, count() as url_count FROM (SELECT distinct_id, event AS first_event, timestamp AS first_timestamp, first_value(event) OVER w AS next_event, properties.$current_url AS current_url FROM events WHERE timestamp > toDateTime('2024-01-01 00:00:00') AND (event = '$pageview' OR event = 'signup') WINDOW w AS (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) ORDER BY distinct_id, timestamp) AS subquery WHERE first_event = '$pageview' AND next_event = 'signup' GROUP BY current_url ORDER BY url_count DESC, current_url",
    clickhouse: `SELECT subquery.current_url, count() AS url_count FROM (SELECT events.distinct_id AS distinct_id, events.event AS first_event, ${TS} AS first_timestamp, first_value(events.event) OVER w AS next_event, ${ev("$current_url")} AS current_url FROM events WHERE and(${TEAM}, greater(${TS}, toDateTime64('2024-01-01 00:00:00.000000', 6, 'UTC')), or(equals(events.event, '$pageview'), equals(events.event, 'signup'))) WINDOW w AS (PARTITION BY events.distinct_id ORDER BY ${TS} ASC ROWS BETWEEN 1 FOLLOWING AND 1 FOLLOWING) ORDER BY events.distinct_id ASC, ${TS} ASC) AS subquery WHERE and(equals(subquery.first_event, '$pageview'), equals(subquery.next_event, 'signup')) GROUP BY subquery.current_url ORDER BY url_count DESC, subquery.current_url ASC`,
  },
  {
    category: "window",
    name: "lagInFrame over an unbounded frame",
    source: `${Q_SKILL} ("LAG() → lagInFrame() with ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING") — adapted: bob's previous event`,
    hogql:
      "SELECT event, lagInFrame(event) OVER (PARTITION BY distinct_id ORDER BY timestamp ASC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS previous FROM events WHERE distinct_id = 'bob' ORDER BY timestamp",
    clickhouse: `SELECT events.event, lagInFrame(events.event) OVER (PARTITION BY events.distinct_id ORDER BY ${TS} ASC ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS previous FROM events WHERE and(${TEAM}, equals(events.distinct_id, 'bob')) ORDER BY ${TS} ASC`,
  },
];

const limitBy: CorpusCase[] = [
  {
    category: "limit-by",
    name: "LIMIT 10 OFFSET 0 BY 1, event",
    source: `${TP} test_select_limit_by`,
    hogql: "select event from events limit 10 offset 0 by 1,event",
    clickhouse: `SELECT events.event FROM events WHERE ${TEAM} LIMIT 10 OFFSET 0 BY 1, events.event LIMIT 100`,
    unordered: true,
  },
  {
    category: "limit-by",
    name: "latest event per distinct id (ORDER BY … LIMIT 1 BY)",
    source: `${TP} test_select_limit_by (LIMIT … BY) — adapted: the latest event of each distinct id`,
    hogql: "SELECT distinct_id, event, timestamp FROM events ORDER BY timestamp DESC LIMIT 1 BY distinct_id",
    clickhouse: `SELECT events.distinct_id, events.event, ${iso(TS)} FROM events WHERE ${TEAM} ORDER BY ${TS} DESC LIMIT 1 BY events.distinct_id`,
  },
];

const funnels: CorpusCase[] = [
  {
    category: "funnels",
    name: "windowFunnel per person",
    source: `${Q_AGGREGATIONS} (windowFunnel); PostHog/posthog ee/clickhouse/sql/funnels/funnel.py FUNNEL_SQL (windowFunnel(within)(timestamp, steps) grouped by person_id) — adapted: a one-day window, three steps`,
    hogql:
      "SELECT level, count() FROM (SELECT person_id, windowFunnel(86400)(toDateTime(timestamp), event = '$pageview', event = 'signup', event = 'purchase') AS level FROM events GROUP BY person_id) GROUP BY level ORDER BY level",
    clickhouse: `SELECT level, count() FROM (SELECT events__pdi.person_id AS person_id, windowFunnel(86400)(toDateTime(${TS}), equals(events.event, '$pageview'), equals(events.event, 'signup'), equals(events.event, 'purchase')) AS level FROM events ${PDI} WHERE ${TEAM} GROUP BY events__pdi.person_id) GROUP BY level ORDER BY level ASC`,
  },
  {
    category: "funnels",
    name: "retention(…) per person",
    source:
      "No PostHog text found for the retention aggregate; the shape follows ClickHouse's parametric aggregate docs (retention(cond1, cond2, …)) — returning on 03-05 and 03-06 after a pageview on 03-04",
    hogql:
      "SELECT sum(r[1]), sum(r[2]), sum(r[3]) FROM (SELECT person_id, retention(toDate(timestamp) = toDate('2024-03-04'), toDate(timestamp) = toDate('2024-03-05'), toDate(timestamp) = toDate('2024-03-06')) AS r FROM events WHERE event = '$pageview' GROUP BY person_id)",
    clickhouse: `SELECT sum(arrayElement(r, 1)), sum(arrayElement(r, 2)), sum(arrayElement(r, 3)) FROM (SELECT events__pdi.person_id AS person_id, retention(equals(toDate(${TS}), toDate('2024-03-04')), equals(toDate(${TS}), toDate('2024-03-05')), equals(toDate(${TS}), toDate('2024-03-06'))) AS r FROM events ${PDI} WHERE and(${TEAM}, equals(events.event, '$pageview')) GROUP BY events__pdi.person_id)`,
  },
];

const placeholders: CorpusCase[] = [
  {
    category: "placeholders",
    name: "{filters} with a date range (the docs' SQL insight)",
    source: `${Q_DOCS_SQL} (SQL insights example with AND {filters}) — adapted: current_url as tie-breaker`,
    hogql: `${FIRST_PAGEVIEW} AND {filters} GROUP BY current_url ORDER BY url_count DESC, current_url`,
    filters: { dateRange: { date_from: "2024-03-05", date_to: "2024-03-06" } },
    clickhouse: firstPageviewSql(`, less(${TS}, toDateTime64('2024-03-06 00:00:00.000000', 6, 'UTC')), greaterOrEquals(${TS}, toDateTime64('2024-03-05 00:00:00.000000', 6, 'UTC'))`),
  },
  {
    category: "placeholders",
    name: "{filters} with an event property filter",
    source: `${TQ} test_hogql_query_filters (EventPropertyFilter exact) — adapted: distinct_id = 'bob' instead of {distinct_id}, $pathname = /pricing, ORDER BY`,
    hogql: "SELECT event, distinct_id from events WHERE distinct_id = 'bob' and {filters} ORDER BY timestamp",
    filters: { properties: [{ key: "$pathname", operator: "exact", value: "/pricing", type: "event" }] },
    clickhouse: `SELECT events.event, events.distinct_id FROM events WHERE and(${TEAM}, equals(events.distinct_id, 'bob'), ifNull(equals(${ev("$pathname")}, '/pricing'), 0)) ORDER BY ${TS} ASC`,
  },
  {
    category: "placeholders",
    name: "{filters} with a property filter and a date range that excludes it",
    source: `${TQ} test_hogql_query_filters (filters.dateRange added: no rows) — adapted as above`,
    hogql: "SELECT event, distinct_id from events WHERE distinct_id = 'bob' and {filters} ORDER BY timestamp",
    filters: { properties: [{ key: "$pathname", operator: "exact", value: "/pricing", type: "event" }], dateRange: { date_from: "2024-03-05", date_to: "2024-03-06" } },
    clickhouse: `SELECT events.event, events.distinct_id FROM events WHERE and(${TEAM}, equals(events.distinct_id, 'bob'), ifNull(equals(${ev("$pathname")}, '/pricing'), 0), less(${TS}, toDateTime64('2024-03-06 00:00:00.000000', 6, 'UTC')), greaterOrEquals(${TS}, toDateTime64('2024-03-05 00:00:00.000000', 6, 'UTC'))) ORDER BY ${TS} ASC`,
  },
  {
    category: "placeholders",
    name: "{filters} without filters is true",
    source: `${TQ} test_hogql_query_filters_empty_true`,
    hogql: "SELECT event from events where {filters}",
    clickhouse: `SELECT events.event FROM events WHERE and(${TEAM}, true)`,
    unordered: true,
  },
  {
    category: "placeholders",
    name: "{variables.startdate} and {variables.enddate}",
    source: `${Q_VARIABLES} (the startdate/enddate example) — adapted: event as tie-breaker`,
    hogql: "SELECT event, count() as count FROM events WHERE timestamp >= {variables.startdate} AND timestamp <= {variables.enddate} GROUP BY event ORDER BY count DESC, event LIMIT 10",
    variables: {
      "0190e000-aaaa-7000-8000-000000000001": { code_name: "startdate", variableId: "0190e000-aaaa-7000-8000-000000000001", value: "2024-03-06 00:00:00" },
      "0190e000-aaaa-7000-8000-000000000002": { code_name: "enddate", variableId: "0190e000-aaaa-7000-8000-000000000002", value: "2024-03-07 00:00:00" },
    },
    clickhouse: `SELECT events.event, count() AS count FROM events WHERE and(${TEAM}, greaterOrEquals(${TS}, '2024-03-06 00:00:00'), lessOrEquals(${TS}, '2024-03-07 00:00:00')) GROUP BY events.event ORDER BY count DESC, events.event ASC LIMIT 10`,
  },
  {
    category: "placeholders",
    name: "{variables.x} as a string value",
    source: `${Q_VARIABLES} (String variables: event names); ${TQ} test_variables_missing_from_query_with_suggestion (the HogQLVariable shape)`,
    hogql: "SELECT count() FROM events WHERE event = {variables.event_name}",
    variables: { "0190e000-aaaa-7000-8000-000000000003": { code_name: "event_name", variableId: "0190e000-aaaa-7000-8000-000000000003", value: "purchase" } },
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, equals(events.event, 'purchase'))`,
  },
];

/** Asia/Tokyo is UTC+9 all year: a date-time is shown with +09:00, days and date ranges start at 15:00 UTC. */
const TOKYO = "Asia/Tokyo";
const tokyo = (column: string) => `toTimeZone(${column}, '${TOKYO}')`;
const TS_TOKYO = tokyo("events.timestamp");
const isoTokyo = (expr: string) => `formatDateTime(${expr}, '%Y-%m-%dT%H:%i:%S+09:00')`;
const Q_TIMESTAMPS = "https://posthog.com/docs/data/timestamps";

const zoned: CorpusCase[] = [
  {
    category: "time",
    timezone: TOKYO,
    name: "Tokyo project: timestamps shown in the project's zone",
    source: `${Q_TIMESTAMPS} (timestamps shown in the project's time zone); ${TQ} test_query_select_person_with_joins_without_poe (SELECT event, timestamp …) — adapted: signups`,
    hogql: "SELECT event, timestamp FROM events WHERE event = 'signup' ORDER BY timestamp",
    clickhouse: `SELECT events.event, ${isoTokyo(TS_TOKYO)} FROM events WHERE and(${TEAM}, equals(events.event, 'signup')) ORDER BY ${TS_TOKYO} ASC`,
  },
  {
    category: "time",
    timezone: TOKYO,
    name: "Tokyo project: toStartOfDay buckets in the project's zone",
    source: `${Q_EXPRESSIONS} (binning events by time) — adapted: a daily count in a Tokyo project`,
    hogql: "SELECT toStartOfDay(timestamp) AS day, count() FROM events GROUP BY day ORDER BY day",
    clickhouse: `SELECT ${isoTokyo(`toStartOfDay(${TS_TOKYO})`)}, count() FROM events WHERE ${TEAM} GROUP BY toStartOfDay(${TS_TOKYO}) ORDER BY toStartOfDay(${TS_TOKYO}) ASC`,
  },
  {
    category: "time",
    timezone: TOKYO,
    name: "Tokyo project: toDate in the project's zone",
    source: `${TQ} test_hogql_groupby_unnecessary_ifnull (toDate(timestamp)) — adapted: a daily count in a Tokyo project`,
    hogql: "SELECT toDate(timestamp) AS day, count() AS cnt FROM events GROUP BY day ORDER BY day",
    clickhouse: `SELECT toString(toDate(${TS_TOKYO})) AS day, count() AS cnt FROM events WHERE ${TEAM} GROUP BY toDate(${TS_TOKYO}) ORDER BY toDate(${TS_TOKYO}) ASC`,
  },
  {
    category: "time",
    timezone: TOKYO,
    name: "Tokyo project: now() in the project's zone",
    source: `${Q_DATE_FILTERS} (now(): the current date and time) — adapted: selected in a Tokyo project`,
    hogql: "SELECT now(), toDate(now())",
    clickhouse: `SELECT ${isoTokyo(toTimeZoneOf(NOW, TOKYO))}, toString(toDate(${toTimeZoneOf(NOW, TOKYO)}))`,
  },
  {
    category: "time",
    timezone: TOKYO,
    name: "Tokyo project: timestamp >= now() - INTERVAL 2 DAY",
    source: `${TQ} test_hogql_proper_ifnull (timestamp >= now() - INTERVAL 30 DAY) — adapted: 2 days, a Tokyo project (the same instants as in UTC)`,
    hogql: "SELECT count() FROM events WHERE timestamp >= now() - INTERVAL 2 DAY",
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, greaterOrEquals(${TS_TOKYO}, minus(${toTimeZoneOf(NOW, TOKYO)}, toIntervalDay(2))))`,
  },
  {
    category: "placeholders",
    timezone: TOKYO,
    name: "Tokyo project: {filters}' dates start at midnight in the project's zone",
    source: `${TQ} test_hogql_query_filters (filters.dateRange) — adapted: a Tokyo project, counted`,
    hogql: "SELECT count() FROM events WHERE {filters}",
    filters: { dateRange: { date_from: "2024-03-05", date_to: "2024-03-06" } },
    clickhouse: `SELECT count() FROM events WHERE and(${TEAM}, less(${TS_TOKYO}, toDateTime64('2024-03-06 00:00:00.000000', 6, '${TOKYO}')), greaterOrEquals(${TS_TOKYO}, toDateTime64('2024-03-05 00:00:00.000000', 6, '${TOKYO}')))`,
  },
];

export const CORPUS: readonly CorpusCase[] = [
  ...basics,
  ...aggregates,
  ...time,
  ...strings,
  ...conditionals,
  ...arrays,
  ...joins,
  ...sessions,
  ...subqueries,
  ...ctes,
  ...union,
  ...window,
  ...limitBy,
  ...funnels,
  ...placeholders,
  ...zoned,
];

/**
 * Answers worked out by hand from the rows listed in hogql-corpus.fixture.ts, for the cases where that is quick:
 * they check the hand-written SQL itself, so that it and the API cannot agree on a wrong answer.
 */
export const WORKED_OUT: Readonly<Record<string, unknown[][]>> = {
  "!= keeps rows that lack the property": [[25]], // 40 events, 15 Chrome
  "= NULL is isNull (absent and JSON null alike)": [[4]], // #9 #21 #22 (no key), #27 (null)
  "IS NOT NULL on a person property": [[31]], // ann 13 + bob 11 + cat 7 (dan has no email)
  "null, absent and present properties": [["free", null, null], ["trial", null, null]],
  "distinct person property from persons": [["ann@example.com"], [null]], // ann and dan are pro
  "numbers(1, 4) table function": [[1], [2], [3], [4]],
  "count(*)": [[40]],
  "count(distinct event)": [[5]],
  "countIf(distinct …, like)": [[4]], // $pageview $pageleave purchase plan_changed contain an a; signup does not
  "uniq of distinct ids and of persons": [[6, 4]],
  "avg of a numeric property": [[81.75]], // 490.5 / 6
  "sumIf ratio": [[0.625]], // 15 Chrome / (9 Safari + 15 Chrome)
  "countIf per event": [[23, 6]],
  "sum by a person property": [["pro", 445.5], ["free", 30], [null, 15]], // ann 200 + dan 245.5; bob; cat
  "occurrences, sessions, users, first and last seen": [[23, 18, 6, "2024-03-08T09:00:00Z", "2024-03-03T23:30:00Z"]],
  "toDate grouping with addDays(today(), -10) and HAVING": [["2024-03-04", 10], ["2024-03-05", 7], ["2024-03-06", 11], ["2024-03-07", 10]],
  "weekly active users, Monday weeks": [["2024-03-04", 4], ["2024-02-26", 1]], // #1 is Sunday 03-03
  "dateDiff('day', timestamp, now()) > 3": [[11]], // the events of 03-03 and 03-04
  "timestamp >= now() - INTERVAL 2 DAY": [[16]], // from 03-06 12:00
  "toHour in another time zone": [[3, 1], [9, 1], [17, 1], [18, 1]], // signups at 18:10, 00:05, 08:10, 09:05 UTC
  "weekdays only (toDayOfWeek)": [[39]],
  "events between two toDateTime instants": [[11]],
  "fromUnixTimestamp": [[17]], // after 03-06 08:00
  "startsWith": [[2]],
  "match a regular expression": [[11]], // 7 on /pricing, 4 on /products
  "lower": [["chrome", 15], ["edge", 3], ["firefox", 9], ["safari", 9], [null, 4]],
  "LIKE": [[4]], // /blog on #21 and #23, and the host blog.example.com (https://blog…) of #25 and #26
  "NOT LIKE keeps rows without the property": [[38]], // #3 and #14 have a ?
  "NOT IN keeps NULLs (transform_null_in)": [[16]], // Edge 3 + Firefox 9 + no browser 4
  "NOT (… OR …)": [[12]], // 40 - 23 - 5
  "?? (nullish coalescing)": [["Chrome", 15], ["Edge", 3], ["Firefox", 9], ["Safari", 9], ["unknown", 4]],
  "coalesce a person property": [["free", 11], ["none", 7], ["pro", 22]],
  "if on a numeric property": [["big", 2], ["small", 4]], // 120 and 200
  "arrayMap lambda": [[[2, 4, 6], 1]],
  "array literal and x[i]": [[[1, 2, 3], 10]],
  "arrayJoin a JSON array property": [['"dark-mode"', 2], ['"new-checkout"', 1]],
  "notEmpty and has over a JSON array": [[2, 1]],
  "has(groupArray(event), …) in HAVING": [["ann@example.com"], ["bob"], ["cat"], ["dan-2"]],
  "nested property access by index": [[null, null, null, null], ["vip", "beta", "Berlin", "10115"]],
  "session.session_id and session.$session_duration on events": [["s-cat-1", 60], ["s-cat-1", 60], ["s-cat-2", 660], ["s-cat-2", 660], ["s-cat-2", 660], ["s-cat-3", 600], ["s-cat-3", 600]],
  "the sessions table: count, average duration, bounces": [[18, 9420 / 18, 7]],
  "first pageview URL: (distinct_id, timestamp) IN (SELECT …)": [["https://shop.example.com/", 2], ["https://shop.example.com/products", 2], ["https://blog.example.com/", 1], ["https://shop.example.com/?utm_source=google", 1]],
  "person_id IN (SELECT id FROM persons …)": [[22]],
  "latest event per distinct id (ORDER BY … LIMIT 1 BY)": [
    ["bob", "$pageview", "2024-03-08T09:00:00Z"],
    ["cat", "purchase", "2024-03-07T20:10:00Z"],
    ["ann@example.com", "$pageleave", "2024-03-07T14:31:00Z"],
    ["dan-2", "$pageleave", "2024-03-07T09:10:00Z"],
    ["dan-1", "$pageview", "2024-03-05T06:00:00Z"],
    ["ann-anon", "signup", "2024-03-04T08:10:00Z"],
  ],
  "lagInFrame over an unbounded frame": [
    ["$pageview", ""], ["$pageview", "$pageview"], ["$pageleave", "$pageview"], ["$pageview", "$pageleave"], ["$pageview", "$pageview"], ["signup", "$pageview"],
    ["purchase", "signup"], ["$pageview", "purchase"], ["plan_changed", "$pageview"], ["$pageview", "plan_changed"], ["$pageview", "$pageview"],
  ],
  "windowFunnel per person": [[2, 2], [3, 2]], // ann and bob convert within a day; cat's and dan's purchase is too late or too early
  "retention(…) per person": [[3, 3, 3]], // ann, bob and dan view on 03-04, 03-05 and 03-06; cat starts 03-05
  "{filters} with a date range (the docs' SQL insight)": [["https://blog.example.com/", 1]], // only cat's first pageview is on 03-05
  "{filters} with an event property filter": [["$pageview", "bob"], ["$pageleave", "bob"]],
  "{filters} with a property filter and a date range that excludes it": [],
  "{variables.startdate} and {variables.enddate}": [["$pageview", 4], ["purchase", 3], ["signup", 2], ["$pageleave", 1], ["plan_changed", 1]],
  "{variables.x} as a string value": [[6]],
  "Tokyo project: timestamps shown in the project's zone": [["signup", "2024-03-04T17:10:00+09:00"], ["signup", "2024-03-06T09:05:00+09:00"], ["signup", "2024-03-07T03:10:00+09:00"], ["signup", "2024-03-07T18:05:00+09:00"]],
  "Tokyo project: now() in the project's zone": [["2024-03-08T21:00:00+09:00", "2024-03-08"]],
  "Tokyo project: timestamp >= now() - INTERVAL 2 DAY": [[16]], // the same instants as in UTC: from 03-06 12:00 UTC
  // Tokyo days start at 15:00 UTC: 03-04 holds #1-6 #14-16; 03-05 #7 #8 #17 #25 #26 #32-34; 03-06 #9 #10 #18-21 #35-37;
  // 03-07 #11-13 #22 #27-29 #38-40; 03-08 #23 #24 #30 #31.
  "Tokyo project: toDate in the project's zone": [["2024-03-04", 9], ["2024-03-05", 8], ["2024-03-06", 9], ["2024-03-07", 10], ["2024-03-08", 4]],
  "Tokyo project: {filters}' dates start at midnight in the project's zone": [[8]], // 03-04 15:00 ≤ t < 03-05 15:00 UTC
};
