import type { EventList, EventRecord } from "../../store/schema.ts";
import { actorTableOf, partOfDid, type ActorTable } from "../shared/actor-table.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { hasSnapshots, type SnapshotColumns } from "../shared/event-read.ts";
import { ALWAYS, type RowPredicate } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import type { ScanSnapshot } from "../../store/columns/column-arrays.ts";
import type { PathsSpec } from "./filter.ts";
import { startRowTask, startTask } from "../parallel/start-task.ts";
import { scanThreads } from "../parallel/thread-count.ts";
import { pathsActorsTask, pathsItemsTask, pathsPartsTask, pathsRowsTask } from "./scan-tasks.ts";
import type { KernelFilter } from "../parallel/count-kernel.ts";
import { kernelFilterOf } from "../shared/column-filter.ts";
import { itemOf, type PathNode, type PathPoint } from "./items.ts";
import type { ActorKey } from "../trends/maths.ts";
import { mergePartEdges, SCREEN_DETAIL, URL_DETAIL, type PathsActorsJob, type PathsColumns, type PathsItemsColumns, type PathsItemsJob, type PathsPartJob } from "./partition.ts";

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
 * Paths read straight from the columns, for persons (under a filter the kernel tests, ../shared/column-filter.ts):
 * each row's item found once per (event name, URL or screen name) pair by ids; the rows with an item grouped by the
 * part of their person over row chunks; then the persons' parts cut their paths, every core taking chunks and parts
 * in turn (partition.ts). Undefined when the general scan must run.
 */
interface ColumnPaths {
  cols: PathsColumns;
  /** Pass 2's job: the persons' parts. */
  job: PathsPartJob;
  rows: number;
  /** Items by id. */
  names: string[];
  table: ActorTable;
}

function columnPaths(events: EventList, spec: PathsSpec, window: QueryWindow, global: RowPredicate, ctx: AnalysisContext, sessionGapMs: number): ColumnPaths | undefined {
  // HogQL items are computed per event: the general scan's.
  if (spec.groupIndex !== undefined || spec.hogql !== undefined || !hasSnapshots(events)) return undefined;
  const snap = events.scanSnapshot();
  const [from, to] = indexRange(events, window.from, window.to);
  const [start, end] = [Math.min(from, snap.length), Math.min(to, snap.length)];
  const table = actorTableOf(ctx, events, snap.distinctIds);
  const filter = global === ALWAYS ? null : kernelFilterOf(global, { events, shapes: snap.shapes, actors: () => table, maxValues: end - start });
  if (filter === undefined) return undefined;
  const { codes, itemOfDetail, names } = rowItems(events, snap, spec, start, end, filter);
  const idOf = (point: string | undefined) => (point === undefined ? undefined : Math.max(-2, names.indexOf(point)));
  const cut = { start: idOf(spec.startPoint), end: idOf(spec.endPoint), stepLimit: spec.stepLimit, ellipsis: names.length };
  const threads = scanThreads(end - start);
  const parts = threads === 1 ? 1 : threads * PARTS_PER_THREAD;
  const cols: PathsColumns = { ts: snap.ts, did: snap.did, slotOfDid: table.slotOfDid, partOfDid: partOfDid(table, parts) };
  const chunks = startRowTask(pathsRowsTask, cols, { parts, codes, itemOfDetail }, start, end)
    .finish()
    .flat()
    .sort((a, b) => a.chunk - b.chunk);
  return { cols, job: { chunks, parts, actors: table.actors.length, sessionGapMs, cut }, rows: end - start, names, table };
}

/** Paths' edges from the columns, else undefined. */
export function columnEdges(events: EventList, spec: PathsSpec, window: QueryWindow, global: RowPredicate, ctx: AnalysisContext, sessionGapMs: number): EdgeTally[] | undefined {
  const run = columnPaths(events, spec, window, global, ctx, sessionGapMs);
  if (!run) return undefined;
  const { names } = run;
  const edges = startTask(pathsPartsTask, run.cols, run.job, run.job.parts, run.rows).finish();
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

/** Per person, how many times its paths count for an actors request's point, from the columns; else undefined. */
export function columnPathActors(events: EventList, spec: PathsSpec, window: QueryWindow, global: RowPredicate, ctx: AnalysisContext, sessionGapMs: number, point: PathPoint<string>): Map<ActorKey, number> | undefined {
  const run = columnPaths(events, spec, window, global, ctx, sessionGapMs);
  if (!run) return undefined;
  const idOf = (node: PathNode<string> | null | undefined): PathNode<number> | null | undefined => {
    if (!node) return node;
    const id = node.item === "..." ? run.names.length : run.names.indexOf(node.item);
    return id < 0 ? null : { k: node.k, item: id };
  };
  const job: PathsActorsJob = { ...run.job, point: { start: idOf(point.start), end: idOf(point.end), dropoff: idOf(point.dropoff) } };
  const shares = new Map<ActorKey, number>();
  for (const { slots, counts } of startTask(pathsActorsTask, run.cols, job, job.parts, run.rows).finish().flat()) {
    slots.forEach((slot, j) => shares.set(run.table.actors[slot]!.id, counts[j]!));
  }
  return shares;
}

/**
 * Pass 0 over [start, end), and the items by id. Which item a row stands for follows from its event name and, for
 * page views and screens, one detail value: the workers read the rows (pathsItems), and itemOf runs here once per
 * event name and once per detail value the rows use, never once per row. Pass 1 resolves the codes with
 * `itemOfDetail`.
 */
function rowItems(events: SnapshotColumns, snap: ScanSnapshot, spec: PathsSpec, start: number, end: number, filter: KernelFilter | null): { codes: Int32Array[]; itemOfDetail: Int32Array; names: string[] } {
  const wants = (type: string) => spec.eventTypes.length === 0 || spec.eventTypes.includes(type);
  const detailOf = new Uint8Array(new SharedArrayBuffer(Math.max(1, snap.names)));
  for (let n = 0; n < snap.names; n++) {
    const name = events.nameOfId(n);
    detailOf[n] = name === "$pageview" && wants("$pageview") ? URL_DETAIL : name === "$screen" && wants("$screen") ? SCREEN_DETAIL : 0;
  }
  const names: string[] = [];
  const idOfItem = new Map<string, number>();
  const idOf = (event: EventRecord): number => {
    const text = itemOf(event, spec);
    if (text === undefined) return -1;
    const id = idOfItem.get(text) ?? names.push(text) - 1;
    idOfItem.set(text, id);
    return id;
  };
  const itemOfName = sharedInts(snap.names);
  for (let n = 0; n < snap.names; n++) itemOfName[n] = idOf({ event: events.nameOfId(n), properties: {} } as EventRecord);
  const slots = 2 * events.valueCount();
  const cols: PathsItemsColumns = { name: snap.name, did: snap.did, shape: snap.shape, valueStart: snap.valueStart, vals: snap.vals };
  const job: PathsItemsJob = { detailOf, urlPos: positions(events, snap, "$current_url"), screenPos: positions(events, snap, "$screen_name"), itemOfName, filter, slots };
  const threads = startRowTask(pathsItemsTask, cols, job, start, end).finish();
  const itemOfDetail = sharedInts(slots);
  const made = new Set<number>();
  for (const slot of threads.flatMap((t) => t.slots)) {
    if (made.has(slot)) continue;
    made.add(slot);
    const [event, key] = slot % 2 === URL_DETAIL - 1 ? ["$pageview", "$current_url"] : ["$screen", "$screen_name"];
    itemOfDetail[slot] = idOf({ event, properties: { [key]: events.valueOfId(slot >> 1) } } as EventRecord);
  }
  const chunks = threads.flatMap((t) => t.chunks).sort((a, b) => a.from - b.from);
  return { codes: chunks.map((c) => c.codes), itemOfDetail, names };
}

const sharedInts = (length: number): Int32Array => new Int32Array(new SharedArrayBuffer(4 * Math.max(1, length)));
const positions = (events: SnapshotColumns, snap: ScanSnapshot, key: string): Int32Array => events.keyPositions(key).slice(0, snap.shapes);
