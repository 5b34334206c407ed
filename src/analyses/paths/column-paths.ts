import type { EventList, EventRecord } from "../../store/schema.ts";
import { actorTableOf } from "../shared/actor-table.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { hasSnapshots, type SnapshotColumns } from "../shared/event-read.ts";
import { ALWAYS, type RowPredicate } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import type { ScanSnapshot } from "../../store/event-table.ts";
import type { PathsSpec } from "./filter.ts";
import { cutPath, itemOf } from "./items.ts";

/**
 * Paths read straight from the columns, for persons without a global filter: each row's item found once per
 * (event name, URL or screen name) pair by ids, the rows grouped by person with a counting sort, and each
 * person's sessions cut as the general scan cuts them. Edges add up over paths, so the order they come in does
 * not matter. Visits every path; false when the general scan must run.
 */
export function forEachColumnPath(
  events: EventList,
  spec: PathsSpec,
  window: QueryWindow,
  global: RowPredicate,
  ctx: AnalysisContext,
  sessionGapMs: number,
  visit: (items: string[], times: number[]) => void,
): boolean {
  if (spec.groupIndex !== undefined || global !== ALWAYS || !hasSnapshots(events)) return false;
  const snap = events.scanSnapshot();
  const [from, to] = indexRange(events, window.from, window.to);
  const [start, end] = [Math.min(from, snap.length), Math.min(to, snap.length)];
  const { item, names } = rowItems(events, snap, spec, start, end);
  const { slotOfDid, actors } = actorTableOf(ctx, events, snap.distinctIds);
  const rows = rowsByActor(snap, slotOfDid, actors.length, item, start, end);
  for (let a = 0; a + 1 < rows.offsets.length; a++) {
    let items: string[] = [];
    let times: number[] = [];
    for (let k = rows.offsets[a]!; k < rows.offsets[a + 1]!; k++) {
      const i = rows.row[k]!;
      const t = snap.ts[i]!;
      if (times.length > 0 && t - times[times.length - 1]! >= sessionGapMs) {
        emit(items, times, spec, visit);
        [items, times] = [[], []];
      }
      items.push(names[item[i - start]!]!);
      times.push(t);
    }
    if (times.length > 0) emit(items, times, spec, visit);
  }
  return true;
}

function emit(items: string[], times: number[], spec: PathsSpec, visit: (items: string[], times: number[]) => void): void {
  const path = cutPath(items, times, spec);
  if (path) visit(path.items, path.times);
}

/** Detail property read for an event name: 1 the URL of a pageview, 2 the screen name of a screen, 0 none. */
const URL_DETAIL = 1;
const SCREEN_DETAIL = 2;

/**
 * Each row's item id (-1: no item) over [start, end), and the items by id: itemOf runs once per event name and
 * detail value id, not once per row.
 */
function rowItems(events: SnapshotColumns, snap: ScanSnapshot, spec: PathsSpec, start: number, end: number): { item: Int32Array; names: string[] } {
  const wants = (type: string) => spec.eventTypes.length === 0 || spec.eventTypes.includes(type);
  const detailOf = new Uint8Array(snap.names);
  for (let n = 0; n < snap.names; n++) {
    const name = events.nameOfId(n);
    detailOf[n] = name === "$pageview" && wants("$pageview") ? URL_DETAIL : name === "$screen" && wants("$screen") ? SCREEN_DETAIL : 0;
  }
  const urlPos = events.keyPositions("$current_url").slice(0, snap.shapes);
  const screenPos = events.keyPositions("$screen_name").slice(0, snap.shapes);
  const names: string[] = [];
  const idOfItem = new Map<string, number>();
  const known = new Map<number, number>();
  const itemIdOf = (nameId: number, valueId: number): number => {
    const key = (valueId + 1) * snap.names + nameId;
    let id = known.get(key);
    if (id !== undefined) return id;
    const name = events.nameOfId(nameId);
    const detailKey = detailOf[nameId] === URL_DETAIL ? "$current_url" : "$screen_name";
    const event = { event: name, properties: valueId < 0 ? {} : { [detailKey]: events.valueOfId(valueId) } } as EventRecord;
    const text = itemOf(event, spec);
    id = text === undefined ? -1 : (idOfItem.get(text) ?? names.push(text) - 1);
    if (text !== undefined) idOfItem.set(text, id);
    known.set(key, id);
    return id;
  };
  const { name, shape, voff, vals } = snap;
  const item = new Int32Array(end - start);
  for (let i = start; i < end; i++) {
    const n = name[i]!;
    const detail = detailOf[n]!;
    const pos = detail === URL_DETAIL ? urlPos[shape[i]!]! : detail === SCREEN_DETAIL ? screenPos[shape[i]!]! : -1;
    item[i - start] = itemIdOf(n, pos < 0 ? -1 : vals[voff[i]! + pos]!);
  }
  return { item, names };
}

/** The rows with an item, grouped by actor slot (stable, so each actor's rows stay in time order). */
function rowsByActor(snap: ScanSnapshot, slotOfDid: Int32Array, actors: number, item: Int32Array, start: number, end: number): { offsets: Int32Array; row: Int32Array } {
  const offsets = new Int32Array(actors + 1);
  for (let i = start; i < end; i++) if (item[i - start]! >= 0) offsets[slotOfDid[snap.did[i]!]! + 1]!++;
  for (let a = 0; a < actors; a++) offsets[a + 1]! += offsets[a]!;
  const fill = offsets.slice(0, actors);
  const row = new Int32Array(offsets[actors]!);
  for (let i = start; i < end; i++) if (item[i - start]! >= 0) row[fill[slotOfDid[snap.did[i]!]!]!++] = i;
  return { offsets, row };
}
