import { parseRelativeOrAbsoluteDate } from "../analyses/shared/date-range.ts";
import { indexRange } from "../analyses/shared/scan.ts";
import { eventProperty } from "../core/event-read.ts";
import { fail } from "../core/errors.ts";
import { parseParam } from "../http/query-json.ts";
import type { HandlerArgs } from "./types.ts";
import type { EventRecord, PersonRecord, Properties } from "../store/schema.ts";

type Q = Record<string, unknown>;

/** Keys of person-property filters anywhere in a filter tree: the "crucial" keys of the timeline. */
function personKeys(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => personKeys(n, out));
  else if (node && typeof node === "object") {
    const n = node as Q;
    if (n.type === "person" && typeof n.key === "string") out.add(n.key);
    Object.values(n).forEach((v) => typeof v === "object" && personKeys(v, out));
  }
  return out;
}

/** date_from/date_to in the grammar of the analyses (reference: analytics §1.2); anything else is a 400 naming it. */
function dateParam(q: Q, name: "date_from" | "date_to", now: number, tz: string, edge: "start" | "end"): number | undefined {
  if (q[name] === undefined || q[name] === "") return undefined;
  if (name === "date_from" && q[name] === "all") return 0;
  const ms = parseRelativeOrAbsoluteDate(String(q[name]), now, tz, edge);
  if (ms === undefined) throw fail.invalid(name, `${name} must be YYYY-MM-DD, an ISO 8601 date-time or a relative date such as -7d.`);
  return ms;
}

const listParam = (q: Q, name: string): unknown[] => {
  const raw = q[name];
  if (raw === undefined) return [];
  const value = typeof raw === "string" ? parseParam(name, raw) : raw;
  if (!Array.isArray(value)) throw fail.invalid(name, `${name} must be a JSON-encoded list.`);
  return value;
};

/** Applies an event's `$set_once` then `$set` to a properties snapshot (reference: ingestion §3.3). */
function applySets(snapshot: Properties, event: EventRecord): Properties {
  const setOnce = eventProperty(event, "$set_once") as Properties | undefined;
  const set = eventProperty(event, "$set") as Properties | undefined;
  if (!setOnce && !set) return snapshot;
  const next = { ...snapshot };
  for (const [k, v] of Object.entries(setOnce ?? {})) if (!(k in next)) next[k] = v;
  return Object.assign(next, set);
}

/**
 * The person's property snapshots over its events in a date range, one point per change of the crucial
 * keys (reference: ingestion-persons-events §4.8). The mock keeps no per-event person snapshot, so a
 * snapshot is the person's current properties with its events' `$set`/`$set_once` applied in order.
 */
export function personTimeline(person: PersonRecord, args: HandlerArgs) {
  const q = args.c.request.query as Q;
  const now = args.deps.clock.now();
  const tz = args.project.timezone;
  const from = dateParam(q, "date_from", now, tz, "start") ?? parseRelativeOrAbsoluteDate("-7d", now, tz, "start")!;
  const to = dateParam(q, "date_to", now, tz, "end") ?? now;
  const names = new Set(listParam(q, "events").map((e) => (e as Q).id).filter((id): id is string => typeof id === "string"));
  const crucial = [...personKeys([listParam(q, "properties"), listParam(q, "events")], new Set())].sort();
  const ids = new Set(person.distinct_ids);
  const table = args.deps.store.events.of(args.project.id);
  const [start, end] = indexRange(table, from, to);
  const events: EventRecord[] = [];
  for (let i = start; i < end; i++) {
    if (!ids.has(table.distinctIdOfId(table.distinctIdIdAt(i)))) continue;
    const e = table.at(i)!;
    if (names.size === 0 || names.has(e.event)) events.push(e);
  }
  const points: { timestamp: string; properties: Properties; relevant_event_count: number }[] = [];
  let snapshot: Properties = person.properties;
  let signature: string | null = null;
  for (const event of events) {
    snapshot = applySets(snapshot, event);
    const next = JSON.stringify(crucial.map((k) => snapshot[k] ?? null));
    if (next !== signature) {
      points.push({ timestamp: new Date(event.timestamp).toISOString(), properties: snapshot, relevant_event_count: 0 });
      signature = next;
    }
    points[points.length - 1]!.relevant_event_count++;
  }
  return {
    points,
    crucial_property_keys: crucial,
    effective_date_from: new Date(from).toISOString(),
    effective_date_to: new Date(to).toISOString(),
  };
}
