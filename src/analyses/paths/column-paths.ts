import type { EventList, EventRecord } from "../../store/schema.ts";
import { actorTableOf, partOfDid } from "../shared/actor-table.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { hasSnapshots, type SnapshotColumns } from "../shared/event-read.ts";
import { ALWAYS, type RowPredicate } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import type { ScanSnapshot } from "../../store/event-table.ts";
import type { PathsSpec } from "./filter.ts";
import { scanThreads, startRowTask, startTask } from "../parallel/pool.ts";
import { passes, type KernelFilter } from "../parallel/count-kernel.ts";
import { kernelFilterOf } from "../shared/column-filter.ts";
import { itemOf } from "./items.ts";
import { mergePartEdges, type PartEdges, type PathsChunkRows, type PathsColumns, type PathsPartJob, type PathsRowsJob } from "./partition.ts";

/** An edge between two path nodes, with the paths using it and the sum of their times between the two, in ms. */
export interface EdgeTally {
  source: string;
  target: string;
  value: number;
  total: number;
}

/** Parts per thread: a thread the machine schedules late leaves its share to the others. */
const PARTS_PER_THREAD = 2;

/**
 * Paths' edges read straight from the columns, for persons (under a filter the kernel tests, ../shared/column-filter.ts):
 * each row's item found once per (event name, URL or screen name) pair by ids; the rows with an item grouped by the
 * part of their person over row chunks, then the persons' parts, every core taking chunks and parts in turn
 * (partition.ts). Undefined when the general scan must run.
 */
export function columnEdges(events: EventList, spec: PathsSpec, window: QueryWindow, global: RowPredicate, ctx: AnalysisContext, sessionGapMs: number): EdgeTally[] | undefined {
  if (spec.groupIndex !== undefined || !hasSnapshots(events)) return undefined;
  const snap = events.scanSnapshot();
  const [from, to] = indexRange(events, window.from, window.to);
  const [start, end] = [Math.min(from, snap.length), Math.min(to, snap.length)];
  const table = actorTableOf(ctx, events, snap.distinctIds);
  const filter = global === ALWAYS ? null : kernelFilterOf(global, { events, shapes: snap.shapes, actors: () => table, maxValues: end - start });
  if (filter === undefined) return undefined;
  const { item, names } = rowItems(events, snap, spec, start, end, filter);
  const idOf = (point: string | undefined) => (point === undefined ? undefined : Math.max(-2, names.indexOf(point)));
  const cut = { start: idOf(spec.startPoint), end: idOf(spec.endPoint), stepLimit: spec.stepLimit, ellipsis: names.length };
  const threads = scanThreads(end - start);
  const parts = threads === 1 ? 1 : threads * PARTS_PER_THREAD;
  const cols: PathsColumns = { ts: snap.ts, did: snap.did, slotOfDid: table.slotOfDid, partOfDid: partOfDid(table, parts), item };
  const chunks = startRowTask<PathsColumns, PathsRowsJob, PathsChunkRows[]>("pathsRows", cols, { start, parts }, start, end)
    .finish()
    .flat()
    .sort((a, b) => a.chunk - b.chunk);
  const job: PathsPartJob = { start, chunks, parts, actors: table.actors.length, sessionGapMs, cut };
  const edges = startTask<PathsColumns, PathsPartJob, PartEdges[]>("paths", cols, job, parts, end - start).finish();
  const span = names.length + 1;
  const itemName = (id: number) => (id === names.length ? "..." : names[id]!);
  return Array.from(mergePartEdges(edges.flat()), ([key, { value, total }]) => {
    const target = key % span;
    const rest = (key - target) / span;
    const source = rest % span;
    const k = (rest - source) / span;
    return { source: `${k + 1}_${itemName(source)}`, target: `${k + 2}_${itemName(target)}`, value, total };
  });
}

/** `a` copied into a larger array (at least `length`), the new places -2. */
function grownFilled(a: Int32Array, length: number): Int32Array {
  const next = new Int32Array(Math.max(length, a.length * 2)).fill(-2);
  next.set(a);
  return next;
}

/** Detail property read for an event name: 1 the URL of a pageview, 2 the screen name of a screen, 0 none. */
const URL_DETAIL = 1;
const SCREEN_DETAIL = 2;

/**
 * Each row's item id (-1: no item) over [start, end), and the items by id: itemOf runs once per event name and
 * detail value id, not once per row.
 */
function rowItems(events: SnapshotColumns, snap: ScanSnapshot, spec: PathsSpec, start: number, end: number, filter: KernelFilter | null): { item: Int32Array; names: string[] } {
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
  const idOf = (nameId: number, valueId: number): number => {
    const name = events.nameOfId(nameId);
    const detailKey = detailOf[nameId] === URL_DETAIL ? "$current_url" : "$screen_name";
    const event = { event: name, properties: valueId < 0 ? {} : { [detailKey]: events.valueOfId(valueId) } } as EventRecord;
    const text = itemOf(event, spec);
    if (text === undefined) return -1;
    const id = idOfItem.get(text) ?? names.push(text) - 1;
    idOfItem.set(text, id);
    return id;
  };
  // Item ids found so far (-2: not yet): per name id for rows without a detail value, per detail value id for the
  // page views' URLs and the screens' names (one name each), grown as larger value ids come.
  const byName = new Int32Array(snap.names).fill(-2);
  const byValue: Int32Array[] = [new Int32Array(0), new Int32Array(1024).fill(-2), new Int32Array(1024).fill(-2)];
  const { name, shape, voff, vals } = snap;
  const item = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, end - start)));
  for (let i = start; i < end; i++) {
    const n = name[i]!;
    const detail = detailOf[n]!;
    const pos = detail === URL_DETAIL ? urlPos[shape[i]!]! : detail === SCREEN_DETAIL ? screenPos[shape[i]!]! : -1;
    let id: number;
    if (pos < 0) {
      id = byName[n]!;
      if (id === -2) id = byName[n] = idOf(n, -1);
    } else {
      const v = vals[voff[i]! + pos]!;
      let known = byValue[detail]!;
      if (v >= known.length) known = byValue[detail] = grownFilled(known, v + 1);
      id = known[v]!;
      if (id === -2) id = known[v] = idOf(n, v);
    }
    // A row the paths' own filter drops is no item, as if it were not there.
    item[i - start] = id >= 0 && filter !== null && !passes(filter, snap, i) ? -1 : id;
  }
  return { item, names };
}
