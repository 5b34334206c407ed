import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHogql, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import { closeEngine, print, runHogql } from "./printer-support.ts";

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
});
afterAll(closeEngine);

const EVENTS = "FROM (SELECT * FROM events WHERE equals(team_id, 7)) AS events";
const BROWSER = `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, '$browser'), ''), 'null'), '^"|"$', '')`;
const ANN = "00000000-0000-0000-0000-00000000000a";
const BOB = "00000000-0000-0000-0000-00000000000b";

describe("printer: fields and property reads", () => {
  const printed: Array<[string, string, string]> = [
    ["a column", "SELECT event FROM events", `SELECT events.event ${EVENTS} LIMIT 101`],
    ["a table alias", "SELECT e.event FROM events AS e", "SELECT e.event FROM (SELECT * FROM events WHERE equals(team_id, 7)) AS e LIMIT 101"],
    ["an event property, named by its key", "SELECT properties.$browser FROM events", `SELECT ${BROWSER} AS \`$browser\` ${EVENTS} LIMIT 101`],
    ["a nested property", "SELECT properties.a.b FROM events", `SELECT replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'a', 'b'), ''), 'null'), '^"|"$', '') AS b ${EVENTS} LIMIT 101`],
    ["a date-time, in the project's zone", "SELECT timestamp FROM events", `SELECT toTimeZone(events.timestamp, 'UTC') AS timestamp ${EVENTS} LIMIT 101`],
    ["$session_id and $group_0", "SELECT $session_id, $group_0 FROM events", `SELECT events.\`$session_id\`, events.\`$group_0\` ${EVENTS} LIMIT 101`],
    [
      "a person property: the person of the event's distinct id (person_distinct_ids joined with persons, as the event's person_id)",
      "SELECT person.properties.plan FROM events",
      // The property is read inside the persons subquery: once per person, not once per event (as the real printer does).
      `SELECT events__person.properties___plan AS plan ${EVENTS} LEFT JOIN (SELECT person.*, pdi.distinct_id AS distinct_id FROM (SELECT * FROM person_distinct_ids WHERE equals(team_id, 7)) AS pdi INNER JOIN (SELECT *, replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, 'plan'), ''), 'null'), '^"|"$', '') AS properties___plan FROM persons WHERE equals(team_id, 7)) AS person ON equals(pdi.person_id, person.id)) AS events__person ON equals(events.distinct_id, events__person.distinct_id) LIMIT 101`,
    ],
    [
      "person_id is the mirror's column (person_distinct_ids read at query time): no join",
      "SELECT person_id FROM events",
      `SELECT events.person_id ${EVENTS} LIMIT 101`,
    ],
    [
      "a lazy join used in an explicit JOIN's ON is printed before that JOIN",
      "SELECT count() FROM events e JOIN persons p ON p.id = e.pdi.person_id",
      "SELECT count() FROM (SELECT * FROM events WHERE equals(team_id, 7)) AS e LEFT JOIN (SELECT * FROM person_distinct_ids WHERE equals(team_id, 7)) AS e__pdi ON equals(e.distinct_id, e__pdi.distinct_id) JOIN (SELECT * FROM persons WHERE equals(team_id, 7)) AS p ON equals(p.id, e__pdi.person_id) LIMIT 101",
    ],
    [
      "pdi then person: two joins, each once",
      "SELECT pdi.person.id, pdi.person_id FROM events",
      `SELECT events__pdi__person.id, events__pdi.person_id ${EVENTS} LEFT JOIN (SELECT * FROM person_distinct_ids WHERE equals(team_id, 7)) AS events__pdi ON equals(events.distinct_id, events__pdi.distinct_id) LEFT JOIN (SELECT * FROM persons WHERE equals(team_id, 7)) AS events__pdi__person ON equals(events__pdi.person_id, events__pdi__person.id) LIMIT 101`,
    ],
  ];
  it.each(printed)("%s", (_name, hogql, clickhouse) => {
    expect(print(hogql).clickhouse).toBe(clickhouse);
  });

  it("types properties from property definitions: Numeric, Boolean, DateTime", () => {
    const propertyTypes = { event: { amount: "Numeric", flag: "Boolean", when: "DateTime" }, person: { age: "Numeric" } };
    const sql = print("SELECT properties.amount, properties.flag, properties.when, properties.$browser, person.properties.age FROM events", { propertyTypes }).clickhouse;
    expect(sql).toContain(`accurateCastOrNull(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'amount'), ''), 'null'), '^"|"$', ''), 'Float64') AS amount`);
    expect(sql).toContain(`transform(toString(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'flag'), ''), 'null'), '^"|"$', '')), ['true', 'false'], [true, false], NULL) AS flag`);
    expect(sql).toContain(`parseDateTime64BestEffortOrNull(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'when'), ''), 'null'), '^"|"$', ''), 6, 'UTC') AS \`when\``);
    expect(sql).toContain(`${BROWSER} AS \`$browser\``);
    expect(sql).toContain(`accurateCastOrNull(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, 'age'), ''), 'null'), '^"|"$', ''), 'Float64') AS properties___age FROM persons`);
  });

  it("converts a DateTime-typed property as a date-time, an untyped one as text to parse", () => {
    const propertyTypes = { event: { when: "DateTime" } };
    const sql = print("SELECT toDate(properties.when), toDateTime(properties.when), toDate(properties.other) FROM events", { propertyTypes }).clickhouse;
    expect(sql).toContain(`toDate(parseDateTime64BestEffortOrNull(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'when'), ''), 'null'), '^"|"$', ''), 6, 'UTC'))`);
    expect(sql).toContain(`toDateTime(parseDateTime64BestEffortOrNull(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'when'), ''), 'null'), '^"|"$', ''), 6, 'UTC'), 'UTC')`);
    expect(sql).toContain(`toDateOrNull(replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.properties, 'other'), ''), 'null'), '^"|"$', ''))`);
  });

  it("reads a materialised property from its column, as the engine declares it", () => {
    const materializedProperties = { events: { "properties.$browser": "mat_$browser" } };
    const { clickhouse } = print("SELECT properties.$browser, count() FROM events GROUP BY 1 ORDER BY 1", { materializedProperties });
    expect(clickhouse).toContain("SELECT nullIf(nullIf(events.`mat_$browser`, ''), 'null') AS `$browser`, count()");
    const fromJson = runHogql("SELECT properties.$browser, count() FROM events GROUP BY 1 ORDER BY 1");
    expect(runHogql("SELECT properties.$browser, count() FROM events GROUP BY 1 ORDER BY 1", { materializedProperties })).toEqual(fromJson);
  });

  it("runs typed and untyped property reads", () => {
    const q = "SELECT properties.amount FROM events WHERE event = 'purchase' ORDER BY timestamp";
    expect(runHogql(q)).toEqual([["30"], ["20"]]);
    expect(runHogql(q, { propertyTypes: { event: { amount: "Numeric" } } })).toEqual([[30], [20]]);
    expect(runHogql("SELECT sum(properties.amount) FROM events", { propertyTypes: { event: { amount: "Numeric" } } })).toEqual([[50]]);
  });

  it("reads a missing property and a JSON null as NULL", () => {
    expect(runHogql("SELECT properties.$browser FROM events WHERE distinct_id = 'b1' ORDER BY timestamp")).toEqual([["Chrome"], [null], [null]]);
  });

  it("names columns as HogQL does", () => {
    expect(print("SELECT event, properties.$browser AS b, count(), person.properties.plan, properties.$browser FROM events GROUP BY 1, 2, 4, 5").columns).toEqual(["event", "b", "count()", "plan", "$browser"]);
    expect(print("SELECT * FROM persons").columns).toEqual(["id", "created_at", "properties", "is_identified"]);
  });

  it("gives a repeated column name its implicit alias once", () => {
    const p = print("SELECT properties.plan, person.properties.plan FROM events");
    expect(p.columns).toEqual(["plan", "plan"]);
    expect(p.clickhouse.match(/ AS plan/g)).toHaveLength(1);
    expect(runHogql("SELECT properties.plan, person.properties.plan FROM events WHERE distinct_id = 'b1' LIMIT 1")).toEqual([[null, "free"]]);
  });

  it("joins persons, distinct ids and sessions as HogQL's resolver does", () => {
    expect(runHogql("SELECT person.properties.plan, count() FROM events GROUP BY 1 ORDER BY 1")).toEqual([["free", 3], ["pro", 3]]);
    expect(runHogql("SELECT distinct_id, pdi.person_id FROM events GROUP BY 1, 2 ORDER BY 1")).toEqual([["a1", ANN], ["a2", ANN], ["b1", BOB]]);
    expect(runHogql("SELECT pdi.person.properties.email FROM events WHERE distinct_id = 'a2'")).toEqual([["ann@example.com"]]);
    expect(runHogql("SELECT $session_id, session.$is_bounce, session.$channel_type FROM events WHERE distinct_id = 'a2'")).toEqual([["s2", true, "Organic Search"]]);
    expect(runHogql("SELECT person_id, count() FROM events GROUP BY 1 ORDER BY 1")).toEqual([[ANN, 3], [BOB, 3]]);
  });

  it("joins an event's group by its type index, as HogQL's group_N joins do", () => {
    expect(print("SELECT group_0.properties.name FROM events").clickhouse).toContain(
      "LEFT JOIN (SELECT *, replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(properties, 'name'), ''), 'null'), '^\"|\"$', '') AS properties___name FROM groups WHERE equals(team_id, 7)) AS events__group_0 ON and(equals(events.`$group_0`, events__group_0.key), equals(events__group_0.index, 0))",
    );
    expect(runHogql("SELECT group_0.properties.name, count() FROM events GROUP BY 1 ORDER BY 1")).toEqual([["Acme", 2], [null, 4]]);
  });

  it("reads the other tables of the HogQL database", () => {
    expect(runHogql("SELECT index, key, properties.name FROM groups ORDER BY index")).toEqual([[0, "acme", "Acme"], [1, "acme", "Not a company"]]);
    expect(runHogql("SELECT session_id, $session_duration, $entry_current_url FROM sessions ORDER BY session_id")).toEqual([["s1", 3600, "https://x.io/"], ["s2", 0, "https://x.io/"], ["s3", 0, null]]);
    expect(runHogql("SELECT distinct_id, person.properties.plan FROM person_distinct_ids ORDER BY 1")).toEqual([["a1", "pro"], ["a2", "pro"], ["b1", "free"]]);
  });

  it("shows date-times in the project's time zone", () => {
    expect(runHogql("SELECT timestamp FROM events ORDER BY timestamp LIMIT 1", { timezone: "America/New_York" })).toEqual([["2024-03-01 05:00:00.000000"]]);
    expect(runHogql("SELECT toDate(timestamp) AS d, count() FROM events GROUP BY d ORDER BY d", { timezone: "Asia/Tokyo" })).toEqual([["2024-03-01", 2], ["2024-03-02", 3], ["2024-03-03", 1]]);
  });

  it("reads fields of subqueries by their HogQL names, keeping a JSON column's property access", () => {
    expect(runHogql("SELECT b, count() FROM (SELECT properties.$browser AS b FROM events) GROUP BY b ORDER BY b")).toEqual([["Chrome", 2], ["Safari", 1], [null, 3]]);
    expect(runHogql("SELECT $browser FROM (SELECT properties.$browser, timestamp FROM events) ORDER BY timestamp LIMIT 1")).toEqual([["Chrome"]]);
    expect(runHogql("SELECT properties.$browser FROM (SELECT properties, timestamp FROM events) AS s ORDER BY s.timestamp LIMIT 1")).toEqual([["Chrome"]]);
  });

  it.each([
    ["SELECT properties FROM events e JOIN persons p ON p.id = e.person_id", /Ambiguous query. Found multiple sources for field: properties/],
    ["SELECT 1 FROM events e JOIN persons e ON 1", /Table alias e already exists in this query/],
    ["SELECT person FROM events", /Can't select a table when a column is expected: person/],
    ["SELECT event.x FROM events", /Can not access property "x" on field "event"/],
    ["SELECT nope FROM events", /Unable to resolve field: nope/],
    ["SELECT e.nope FROM events e", /Field not found: nope/],
  ])("refuses %s", (hogql, message) => {
    expect(() => print(hogql)).toThrow(message);
  });
});
