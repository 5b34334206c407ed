import type { EventList, EventRecord } from "../../store/schema.ts";
import type { Actor, ActorOf } from "../shared/actors.ts";
import type { EventMatcher } from "../shared/entity-match.ts";
import { ALWAYS, type RowPredicate } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import { isColumnar, timestampAt } from "../shared/event-read.ts";

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
  /** With group aggregation, the event's group actor (none: the event drops out); otherwise the person is the actor. */
  /** Group actors: the actor of `events.at(position)`. */
  aggregate?: (event: EventRecord, position: number) => Actor | undefined;
}

/** Stands for the person where nothing tests it (group aggregation without person conditions). */
const NO_PERSON: Actor = { id: 0, person: undefined, slot: -1 };

export const eventAt = (journey: Journey, i: number): EventRecord => journey.source.at(journey.eventIndex[i]!)!;

export function collectJourneys(input: CollectInput): Journey[] {
  const [start, end] = indexRange(input.events, input.range.from, input.range.to);
  const kept = { index: new Int32Array(end - start), actor: new Int32Array(end - start), steps: new Int32Array(end - start), exclusions: new Int32Array(end - start) };
  const actors: Actor[] = [];
  const masks = maskerOf(input.steps, input.exclusions);
  // Group actors need the event's person only when a filter or step condition tests it.
  const needsPerson = !input.aggregate || input.global !== ALWAYS || [...input.steps, ...input.exclusions].some((m) => m.rest !== ALWAYS);
  // Over a column table the name test and the person lookup run on ids, before any row is made.
  const columns = isColumnar(input.events) ? input.events : null;
  const entryByName: (Masks | undefined | null)[] = [];
  const personByDid: Actor[] = [];
  let n = 0;
  for (let i = start; i < end; i++) {
    let entry: Masks | undefined;
    let person: Actor | undefined;
    if (columns) {
      const nameId = columns.nameIdAt(i);
      let known = entryByName[nameId];
      if (known === undefined) entryByName[nameId] = known = masks(columns.nameOfId(nameId)) ?? null;
      if (known === null && !input.keepAll) continue;
      entry = known ?? undefined;
      if (needsPerson) {
        const did = columns.distinctIdIdAt(i);
        person = personByDid[did] ??= input.actorOf(columns.distinctIdOfId(did));
      }
    }
    const event = input.events.at(i)!;
    if (!columns) {
      entry = masks(event.event);
      if (entry === undefined && !input.keepAll) continue;
    }
    person ??= needsPerson ? input.actorOf(event.distinct_id) : NO_PERSON;
    if (input.global !== ALWAYS && !input.global(event, person.person)) continue;
    const steps = entry ? entry.steps(event, person) : 0;
    const exclusions = entry ? entry.exclusions(event, person) : 0;
    if (!input.keepAll && steps === 0 && exclusions === 0) continue;
    const actor = input.aggregate ? input.aggregate(event, i) : person;
    if (actor === undefined) continue;
    actors[actor.slot] = actor;
    kept.index[n] = i;
    kept.actor[n] = actor.slot;
    kept.steps[n] = steps;
    kept.exclusions[n] = exclusions;
    n++;
  }
  return groupByActor(input.events, kept, n, actors);
}

interface Kept {
  index: Int32Array;
  actor: Int32Array;
  steps: Int32Array;
  exclusions: Int32Array;
}

/** Counting sort by actor slot, stable, so each actor's events stay in time order. */
function groupByActor(source: EventList, kept: Kept, n: number, actors: Actor[]): Journey[] {
  const offsets = new Int32Array(actors.length + 1);
  for (let k = 0; k < n; k++) offsets[kept.actor[k]! + 1]!++;
  for (let s = 0; s < actors.length; s++) offsets[s + 1]! += offsets[s]!;
  const fill = offsets.slice(0, actors.length);
  const out = { index: new Int32Array(n), ts: new Float64Array(n), steps: new Int32Array(n), exclusions: new Int32Array(n) };
  for (let k = 0; k < n; k++) {
    const at = fill[kept.actor[k]!]!++;
    out.index[at] = kept.index[k]!;
    out.ts[at] = timestampAt(source, kept.index[k]!);
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

type Mask = (event: EventRecord, actor: Actor) => number;

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
    const entry = s || x ? { steps: s ?? (() => 0), exclusions: x ?? (() => 0) } : undefined;
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
  if (checked.length === 0) return () => fixed;
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
