/**
 * The event and property taxonomy of a project, computed from its stored events, persons and groups (the real
 * service keeps it in tables filled by ingestion; here it is derived, once per data version).
 */
import { offMainThread, sameVersion } from "../analyses/parallel/off-main-thread.ts";
import { startRowTask } from "../analyses/parallel/start-task.ts";
import { planThreads } from "../analyses/parallel/thread-count.ts";
import { summaryTask } from "../analyses/scan-worker/summary-task.ts";
import { keptTable } from "../analyses/shared/kept-tables.ts";
import { mergeSummaryTallies, summaryOf, type EventSummary } from "../store/columns/event-summary.ts";
import type { EventTable } from "../store/event-table.ts";
import type { Properties } from "../store/schema.ts";
import type { Store } from "../store/store.ts";

export type PropertyType = "String" | "Numeric" | "Boolean" | "DateTime";
const KINDS: readonly PropertyType[] = ["String", "Numeric", "Boolean", "DateTime"];
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** The kind of one value: its index in KINDS, -1 for null, objects and lists (they give no type). */
export function kindOf(value: unknown): number {
  if (typeof value === "number") return 1;
  if (typeof value === "boolean") return 2;
  if (typeof value === "string") return ISO_DATE.test(value) ? 3 : 0;
  return -1;
}

export interface EventDefinition {
  name: string;
  count: number;
  volume30Day: number;
  firstSeen: number;
  lastSeen: number;
}

export interface PropertyDefinition {
  name: string;
  /** Events (or persons, groups) that set it. */
  count: number;
  propertyType: PropertyType | null;
  /** Event names it was seen on (event properties only). */
  eventNames: ReadonlySet<string>;
}

export interface Taxonomy {
  events: EventDefinition[];
  eventProperties: PropertyDefinition[];
}

const byCountThenName = <T extends { name: string }>(count: (x: T) => number) => (a: T, b: T) => count(b) - count(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The most frequent kind among the counts, null when no value had one. */
function typeOf(counts: ArrayLike<number>): PropertyType | null {
  let best = -1;
  for (let k = 0; k < KINDS.length; k++) if (counts[k]! > 0 && (best < 0 || counts[k]! > counts[best]!)) best = k;
  return best < 0 ? null : KINDS[best]!;
}

/** Each value id's kind (kindOf), kept per table and extended as the dictionary grows; in shared memory for the workers. */
const valueKindsOf = (table: EventTable): Int8Array =>
  keptTable(table, "property-kinds", Infinity, (n) => new Int8Array(new SharedArrayBuffer(n)), (id) => kindOf(table.valueOfId(id)))!;

/**
 * A table's summary (`table.summarize`'s, from the same rows function) with its rows cut into chunks for the scan
 * threads: under offMainThread the workers take every chunk, else the main thread takes its share.
 */
export function eventSummary(table: EventTable, since: number, until: number): EventSummary {
  const scan = table.summaryScan(valueKindsOf(table), KINDS.length, since, until);
  const tallies = startRowTask(summaryTask, scan.cols, scan.job, 0, scan.rows).finish();
  return summaryOf(scan, mergeSummaryTallies(tallies, scan.job));
}

/** The same summary in one pass on this thread alone (`table.summarize`): what eventSummary must equal. */
export const eventSummaryOnMain = (table: EventTable, since: number, until: number): EventSummary => table.summarize(valueKindsOf(table), KINDS.length, since, until);

/** Event definitions and event properties of a table; `now`: the end of the 30-day window of the volumes. */
export function eventTaxonomy(table: EventTable, now: number): Taxonomy {
  const s = eventSummary(table, now - 30 * 86_400_000, now);
  const events: EventDefinition[] = [];
  s.names.forEach((name, id) => {
    if (s.nameCount[id]! > 0) events.push({ name, count: s.nameCount[id]!, volume30Day: s.nameRecent[id]!, firstSeen: s.nameFirst[id]!, lastSeen: s.nameLast[id]! });
  });
  events.sort(byCountThenName((e) => e.volume30Day));
  const eventProperties: PropertyDefinition[] = [];
  s.keys.forEach((name, id) => {
    if (s.keyCount[id]! === 0) return;
    const kinds = s.keyKinds.subarray(id * KINDS.length, (id + 1) * KINDS.length);
    eventProperties.push({ name, count: s.keyCount[id]!, propertyType: typeOf(kinds), eventNames: new Set([...s.keyNames[id]!].map((n) => s.names[n]!)) });
  });
  eventProperties.sort(byCountThenName((p) => p.count));
  return { events, eventProperties };
}

/**
 * A project's event taxonomy with its scan on the workers while the event loop stays free (a small table is read on
 * the main thread, as other scans are); a change of the project's data meanwhile starts it over.
 */
export function eventTaxonomyOffMain(store: Store, projectId: string, now: number): Promise<Taxonomy> {
  const events = () => store.analysisData.events(projectId);
  return offMainThread(() => eventTaxonomy(events(), now), sameVersion(() => store.analysisData.version(projectId)), planThreads(events().length, true));
}

/** Property definitions of a list of property objects (persons' or groups'). */
export function recordProperties(records: Iterable<Properties>): PropertyDefinition[] {
  const stats = new Map<string, { count: number; kinds: number[] }>();
  for (const props of records) {
    for (const [key, value] of Object.entries(props)) {
      let st = stats.get(key);
      if (!st) stats.set(key, (st = { count: 0, kinds: [0, 0, 0, 0] }));
      st.count++;
      const kind = kindOf(value);
      if (kind >= 0) st.kinds[kind]!++;
    }
  }
  return [...stats]
    .map(([name, st]) => ({ name, count: st.count, propertyType: typeOf(st.kinds), eventNames: new Set<string>() }))
    .sort(byCountThenName((p) => p.count));
}

/** Property types by kind, as the SQL printer reads them: `{event: {$browser: "String", amount: "Numeric"}, person: …}`. */
export type PropertyTypes = Record<"event" | "person" | "group", Record<string, PropertyType>>;

const typesOf = (defs: readonly PropertyDefinition[]): Record<string, PropertyType> =>
  Object.fromEntries(defs.flatMap((d) => (d.propertyType ? [[d.name, d.propertyType]] : [])));

/** How many values of each kind every event property key has had (KINDS order). */
type KindCounts = Map<string, number[]>;

/**
 * Counts of a whole table: one pass on the main thread, once per project index (appends keep them current). Not on
 * the workers: it runs inside analyses, whose runs off the main thread number their scans (offMainThread), and
 * whether it scans depends on this cache, which another request may fill between two runs.
 */
function tableKindCounts(table: EventTable): KindCounts {
  const s = eventSummaryOnMain(table, 0, 0);
  const counts: KindCounts = new Map();
  s.keys.forEach((key, id) => {
    if (s.keyCount[id]! > 0) counts.set(key, Array.from(s.keyKinds.subarray(id * KINDS.length, (id + 1) * KINDS.length)));
  });
  return counts;
}

function addKinds(counts: KindCounts, properties: Properties): void {
  for (const [key, value] of Object.entries(properties)) {
    let c = counts.get(key);
    if (!c) counts.set(key, (c = [0, 0, 0, 0]));
    const kind = kindOf(value);
    if (kind >= 0) c[kind]!++;
  }
}

interface ProjectTypes {
  /** The project's index when the counts were taken: another one (a deletion, a reset) means counting again. */
  index: object;
  eventKinds: KindCounts;
  /** The data version `types` was derived at. */
  version: number;
  types: PropertyTypes | null;
}

/**
 * Per store and project: the event properties' kind counts, kept current by capture's appends (so a capture does
 * not cost a scan of every event at the next read), and the types derived from them at the last version read.
 */
const typeCache = new WeakMap<Store, Map<string, ProjectTypes>>();

function cacheOf(store: Store): Map<string, ProjectTypes> {
  let byProject = typeCache.get(store);
  if (!byProject) {
    const created = (byProject = new Map());
    typeCache.set(store, created);
    store.events.onAppend((projectId, _table, events) => {
      const known = created.get(projectId);
      if (!known || known.index !== store.analysisData.index(projectId)) return;
      for (const e of events) addKinds(known.eventKinds, e.properties);
    });
  }
  return byProject;
}

/**
 * A project's property types as HogQL reads them (the query API's SQL and the in-process expressions alike): the
 * kind most of a property's values had (the real service's property definitions type a property by the values
 * ingestion saw), for events, persons and groups.
 */
export function projectPropertyTypes(store: Store, projectId: string): PropertyTypes {
  const byProject = cacheOf(store);
  const index = store.analysisData.index(projectId);
  const version = store.analysisData.version(projectId);
  let known = byProject.get(projectId);
  if (known?.index !== index) byProject.set(projectId, (known = { index, eventKinds: tableKindCounts(store.analysisData.events(projectId)), version: -1, types: null }));
  if (known.version !== version || !known.types) {
    const event: Record<string, PropertyType> = {};
    for (const [key, counts] of known.eventKinds) {
      const type = typeOf(counts);
      if (type) event[key] = type;
    }
    const persons = [...index.personsById.values()].map((p) => p.properties);
    known.types = { event, person: typesOf(recordProperties(persons)), group: typesOf(recordProperties(store.analysisData.groups(projectId).map((g) => g.properties))) };
    known.version = version;
  }
  return known.types;
}
