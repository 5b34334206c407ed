import type { EventList, EventRecord } from "../../store/schema.ts";
import type { Actor, ActorOf } from "../shared/actors.ts";
import type { EventMatcher } from "../shared/entity-match.ts";
import { ALWAYS, type RowPredicate } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import { isColumnar, type EventColumns } from "../shared/event-read.ts";

/**
 * Per actor, the events of the date range that matter to the funnel, in time order, each with a bitmask
 * of the steps (and exclusions) it matches. Strict funnels keep every event: any event breaks them
 * (reference: analytics §5.2, §11 item 9). Journeys are views into a few shared typed arrays, grouped
 * by actor with a counting sort: no per-event objects.
 */
export interface Journey {
  actor: Actor;
  source: EventList;
  /** Index into `source` of each journey event. */
  eventIndex: Int32Array;
  ts: Float64Array;
  steps: Int32Array;
  exclusions: Int32Array;
  /** When set, only the events marked 1 may start an attempt (an unordered funnel's step attribution). */
  starts?: Uint8Array;
}

export interface CollectInput {
  events: EventList;
  range: { from: number; to: number };
  steps: readonly EventMatcher[];
  exclusions: readonly EventMatcher[];
  global: RowPredicate;
  keepAll: boolean;
  /** The event's person: filters and step conditions test it. */
  actorOf: ActorOf;
  /**
   * With group or HogQL aggregation, the actor of `events.at(position)` (none: the event drops out); otherwise the
   * person is the actor. `person` is the event's person when a filter, a step condition or `aggregateReadsPerson` needs it.
   */
  aggregate?: (event: EventRecord, position: number, person: Actor) => Actor | undefined;
  /** The aggregation reads the event's person (a HogQL expression may read `person.properties`). */
  aggregateReadsPerson?: boolean;
}

/** Stands for the person where nothing tests it (group aggregation without person conditions). */
const NO_PERSON: Actor = { id: 0, person: undefined, slot: -1 };

export const eventAt = (journey: Journey, i: number): EventRecord => journey.source.at(journey.eventIndex[i]!)!;

export function collectJourneys(input: CollectInput): Journey[] {
  const [start, end] = indexRange(input.events, input.range.from, input.range.to);
  const kept = Kept.reset(end - start);
  const masks = maskerOf(input.steps, input.exclusions);
  // Group actors need the event's person only when a filter or step condition tests it.
  const needsPerson = !input.aggregate || input.aggregateReadsPerson === true || input.global !== ALWAYS || [...input.steps, ...input.exclusions].some((m) => m.rest !== ALWAYS);
  const consider = (i: number, event: EventRecord, person: Actor, entry: Masks | undefined) => {
    if (input.global !== ALWAYS && !input.global(event, person.person)) return;
    const steps = entry ? entry.steps(event, person) : 0;
    const exclusions = entry ? entry.exclusions(event, person) : 0;
    if (!input.keepAll && steps === 0 && exclusions === 0) return;
    const actor = input.aggregate ? input.aggregate(event, i, person) : person;
    if (actor !== undefined) kept.push(i, event.timestamp, actor, steps, exclusions);
  };
  if (isColumnar(input.events)) {
    collectFromColumns(input.events, start, end, input, masks, needsPerson, consider);
  } else {
    for (let i = start; i < end; i++) {
      const event = input.events.at(i)!;
      const entry = masks(event.event);
      if (entry === undefined && !input.keepAll) continue;
      consider(i, event, needsPerson ? input.actorOf(event.distinct_id) : NO_PERSON, entry);
    }
  }
  return groupByActor(input.events, kept);
}

/** Over a column table the name test and the person lookup run on ids, before any row is made. */
function collectFromColumns(
  events: EventColumns,
  start: number,
  end: number,
  input: CollectInput,
  masks: (name: string) => Masks | undefined,
  needsPerson: boolean,
  consider: (i: number, event: EventRecord, person: Actor, entry: Masks | undefined) => void,
): void {
  const cols = events.scanColumns();
  // Per name id: 0 not looked at yet, 1 no step or exclusion, 2 some, 3 masks fixed by the name alone.
  const state = new Uint8Array(cols.names);
  const entries: (Masks | undefined)[] = new Array(cols.names).fill(undefined);
  const fixedSteps = new Int32Array(cols.names);
  const fixedExclusions = new Int32Array(cols.names);
  const persons: (Actor | undefined)[] = needsPerson ? new Array(cols.distinctIds).fill(undefined) : [];
  // With no global filter and persons as actors, an event whose name fixes its masks is kept without a call.
  const direct = input.global === ALWAYS && !input.aggregate;
  const kept = Kept.current();
  const { ts, name, did } = cols;
  // `consider` reads the event and keeps numbers only: one moving row serves every event.
  const cursor = events.cursor();
  for (let i = start; i < end; i++) {
    const nameId = name[i]!;
    let known = state[nameId]!;
    if (known === 0) {
      const entry = (entries[nameId] = masks(events.nameOfId(nameId)));
      known = entry === undefined ? 1 : entry.steps.fixed !== undefined && entry.exclusions.fixed !== undefined ? 3 : 2;
      if (known === 3) [fixedSteps[nameId], fixedExclusions[nameId]] = [entry!.steps.fixed!, entry!.exclusions.fixed!];
      state[nameId] = known;
    }
    if (known === 1 && !input.keepAll) continue;
    let person = NO_PERSON;
    if (needsPerson) {
      const d = did[i]!;
      person = persons[d] ??= input.actorOf(events.distinctIdOfId(d));
    }
    if (known === 3 && direct) {
      kept.push(i, ts[i]!, person, fixedSteps[nameId]!, fixedExclusions[nameId]!);
      continue;
    }
    cursor.position = i;
    consider(i, cursor, person, entries[nameId]);
  }
}

/**
 * The kept events, in typed arrays grown on demand (most events of a large range match no step), and the same
 * grouped by actor. One set is reused by every collection: allocating tens of megabytes of typed arrays per
 * funnel spent its time in garbage collection. So journeys are views valid until the next collection:
 * every caller (computeFunnel, funnelPopulation) is done with them before it returns.
 */
class Kept {
  static readonly #shared = new Kept();
  n = 0;
  most = 0;
  index = new Int32Array(1 << 16);
  ts = new Float64Array(1 << 16);
  actor = new Int32Array(1 << 16);
  steps = new Int32Array(1 << 16);
  exclusions = new Int32Array(1 << 16);
  actors: Actor[] = [];
  grouped = { index: new Int32Array(0), ts: new Float64Array(0), steps: new Int32Array(0), exclusions: new Int32Array(0) };
  /** The set being filled by the running collection. */
  static current(): Kept {
    return Kept.#shared;
  }
  static reset(most: number): Kept {
    const kept = Kept.#shared;
    kept.n = 0;
    kept.most = most;
    kept.actors = [];
    return kept;
  }
  push(i: number, ts: number, actor: Actor, steps: number, exclusions: number): void {
    if (this.n === this.index.length) this.#grow(Math.min(this.most, this.n * 2));
    const n = this.n++;
    this.actors[actor.slot] = actor;
    this.index[n] = i;
    this.ts[n] = ts;
    this.actor[n] = actor.slot;
    this.steps[n] = steps;
    this.exclusions[n] = exclusions;
  }
  #grow(size: number): void {
    const grow = <T extends Int32Array | Float64Array>(from: T, to: T): T => (to.set(from), to);
    this.index = grow(this.index, new Int32Array(size));
    this.ts = grow(this.ts, new Float64Array(size));
    this.actor = grow(this.actor, new Int32Array(size));
    this.steps = grow(this.steps, new Int32Array(size));
    this.exclusions = grow(this.exclusions, new Int32Array(size));
  }
}

/** Counting sort by actor slot, stable, so each actor's events stay in time order. */
function groupByActor(source: EventList, kept: Kept): Journey[] {
  const { n, actors } = kept;
  const offsets = new Int32Array(actors.length + 1);
  for (let k = 0; k < n; k++) offsets[kept.actor[k]! + 1]!++;
  for (let s = 0; s < actors.length; s++) offsets[s + 1]! += offsets[s]!;
  const fill = offsets.slice(0, actors.length);
  if (kept.grouped.index.length < n) {
    const size = Math.min(kept.most, n * 2);
    kept.grouped = { index: new Int32Array(size), ts: new Float64Array(size), steps: new Int32Array(size), exclusions: new Int32Array(size) };
  }
  const out = kept.grouped;
  for (let k = 0; k < n; k++) {
    const at = fill[kept.actor[k]!]!++;
    out.index[at] = kept.index[k]!;
    out.ts[at] = kept.ts[k]!;
    out.steps[at] = kept.steps[k]!;
    out.exclusions[at] = kept.exclusions[k]!;
  }
  const journeys: Journey[] = [];
  actors.forEach((actor, slot) => {
    const [a, b] = [offsets[slot]!, offsets[slot + 1]!];
    if (a === b) return;
    journeys.push({ actor, source, eventIndex: out.index.subarray(a, b), ts: out.ts.subarray(a, b), steps: out.steps.subarray(a, b), exclusions: out.exclusions.subarray(a, b) });
  });
  return journeys;
}

/** `fixed`: the mask when the name alone decides it (no condition to evaluate). */
type Mask = ((event: EventRecord, actor: Actor) => number) & { fixed?: number };

const fixedMask = (mask: number): Mask => Object.assign(() => mask, { fixed: mask });

/**
 * Per event name, the step and exclusion masks: matchers that only test the name contribute fixed bits,
 * the others are evaluated. Built lazily, once per distinct event name.
 */
type Masks = { steps: Mask; exclusions: Mask };

function maskerOf(steps: readonly EventMatcher[], exclusions: readonly EventMatcher[]): (name: string) => Masks | undefined {
  const cache = new Map<string, Masks | undefined>();
  return (name) => {
    if (cache.has(name)) return cache.get(name);
    const s = maskFor(steps, name);
    const x = maskFor(exclusions, name);
    const entry = s || x ? { steps: s ?? fixedMask(0), exclusions: x ?? fixedMask(0) } : undefined;
    cache.set(name, entry);
    return entry;
  };
}

function maskFor(matchers: readonly EventMatcher[], name: string): Mask | undefined {
  let fixed = 0;
  const checked: [number, RowPredicate][] = [];
  matchers.forEach((m, k) => {
    if (m.names !== null && !m.names.has(name)) return;
    if (m.rest === ALWAYS) fixed |= 1 << k;
    else checked.push([1 << k, m.rest]);
  });
  if (fixed === 0 && checked.length === 0) return undefined;
  if (checked.length === 0) return fixedMask(fixed);
  return (event, actor) => {
    let mask = fixed;
    for (const [bit, rest] of checked) if (rest(event, actor.person)) mask |= bit;
    return mask;
  };
}

/** The same journey with only the events at the kept indexes (all_events attribution). */
export function subJourney(journey: Journey, keep: (index: number) => boolean): Journey {
  const picked = [...journey.ts.keys()].filter(keep);
  return {
    actor: journey.actor,
    source: journey.source,
    eventIndex: Int32Array.from(picked, (i) => journey.eventIndex[i]!),
    ts: Float64Array.from(picked, (i) => journey.ts[i]!),
    steps: Int32Array.from(picked, (i) => journey.steps[i]!),
    exclusions: Int32Array.from(picked, (i) => journey.exclusions[i]!),
  };
}
