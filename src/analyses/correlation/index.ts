import type { EventList, EventRecord, Properties } from "../../store/schema.ts";
import type { Actor } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { groupLookup } from "../shared/groups.ts";
import { findAction } from "../shared/series.ts";
import { indexRange } from "../shared/scan.ts";
import { hasSnapshots, isColumnar, type EventColumns } from "../shared/event-read.ts";
import { peopleUrl } from "../shared/people-url.ts";
import { stringForm } from "../shared/property-operators.ts";
import { funnelPopulation, type FunnelFilter, type FunnelSpec } from "../funnels/index.ts";
import { readCorrelationSpec, type CorrelationSpec } from "./filter.ts";
import { oddsRows, type ActorCounts, type CorrelationRow } from "./odds.ts";
import { columnEventCounts } from "./column-correlation.ts";
import { correlatedEvent, correlatesElements, elementsValue } from "./autocapture.ts";
import { rowPoint } from "./row-point.ts";

export type { CorrelationRow } from "./odds.ts";

export interface CorrelationResult {
  events: CorrelationRow[];
  skewed: boolean;
}

/** An actor who entered the funnel, and the span of its attempt whose other events are correlated. */
export interface FunnelEntrant {
  actor: Actor;
  converted: boolean;
  /** Exclusive bounds: after the first step; before the last step, else the window's close (reference §6). */
  from: number;
  to: number;
}

export interface CorrelationPopulation {
  spec: CorrelationSpec;
  entrants: Map<number, FunnelEntrant>;
  /** Names of the funnel's step events: never correlated. */
  stepNames: ReadonlySet<string>;
  visitSpans(visit: (event: EventRecord, entrant: FunnelEntrant) => void): void;
  /** The funnel's group type when it aggregates by groups (the entrants are then groups). */
  groupIndex: number | undefined;
  /** An entrant's own properties: the person's, or the group's when the funnel aggregates by groups. */
  propertiesOf: (actor: Actor) => Properties;
  /** Event correlation's table counted over every core from the columns, when the funnel was read from them. */
  countEventNames?: () => Map<string, ActorCounts> | undefined;
}

/**
 * Funnel correlation (reference: analytics §6): among the actors who entered the funnel, success = reached the
 * last step. Per event name (or person property value, or event property value) the successful and failed actors
 * having it, an odds ratio with a prior of 1, insignificant values dropped; top 10 success then top 10 failure.
 * A breakdown on the funnel is ignored.
 */
export function computeCorrelation(events: EventList, filter: FunnelFilter, ctx: AnalysisContext): CorrelationResult {
  const population = correlationPopulation(events, filter, ctx);
  let successes = 0;
  for (const e of population.entrants.values()) if (e.converted) successes++;
  const failures = population.entrants.size - successes;
  if (successes === 0 || failures === 0) return { events: [], skewed: true };
  const table = population.countEventNames?.() ?? actorCounts(contingency(population));
  const urlOf = (name: string, converted: boolean) => peopleUrl(ctx, "funnel/correlation", filter, rowPoint(population.spec, population.groupIndex, name, converted));
  const elements = population.spec.type === "event_with_properties" && correlatesElements(population.spec.eventNames);
  const rows = oddsRows(table, successes, failures, population.spec.type, urlOf, (name) => correlatedEvent(name, elements));
  return { events: rows, skewed: successes / failures > 10 || failures / successes > 10 };
}

/** The funnel's entrants and their spans: the table counts them, the actors endpoint lists them. */
export function correlationPopulation(events: EventList, filter: FunnelFilter, ctx: AnalysisContext, spec = readCorrelationSpec(filter)): CorrelationPopulation {
  const funnel = funnelPopulation(events, { ...filter, breakdown: undefined, breakdowns: undefined }, ctx);
  const last = funnel.spec.steps.length;
  const entrants = new Map<number, FunnelEntrant>();
  for (const [id, attempt] of funnel.byKey.get("") ?? []) {
    const converted = attempt.level === last;
    const from = attempt.times[0]!;
    // The last time is the last step's: with optional steps the attempt's times are its required steps' alone.
    entrants.set(id, { actor: funnel.actors.get(id)!, converted, from, to: converted ? attempt.times.at(-1)! : from + funnel.spec.windowMs });
  }
  const stepNames = stepEventNames(funnel.spec, ctx);
  const skipped = (name: string) => stepNames.has(name) || spec.excludeEventNames.has(name);
  // Visitors keep nothing of the event after their call: a column table hands them one moving row.
  const visitSpans = (visit: (event: EventRecord, entrant: FunnelEntrant) => void) => {
    const [start, end] = indexRange(events, funnel.window.from, funnel.window.to);
    // A HogQL expression's values as actors (funnel_aggregate_by_hogql) are per event, not per distinct id.
    const personsAreActors = funnel.spec.groupIndex === undefined && funnel.spec.hogqlActor === undefined;
    if (isColumnar(events)) return visitColumnSpans(events, start, end, skipped, personsAreActors, funnel.actorOfEvent, entrants, visit);
    for (let i = start; i < end; i++) {
      const event = events.at(i)!;
      if (skipped(event.event)) continue;
      const actor = funnel.actorOfEvent(event);
      const entrant = actor && entrants.get(actor.id);
      if (entrant && event.timestamp > entrant.from && event.timestamp < entrant.to) visit(event, entrant);
    }
  };
  const { columns } = funnel;
  const countEventNames =
    spec.type === "events" && columns && hasSnapshots(events) ? () => columnEventCounts(events, columns, entrants, funnel.window, skipped) : undefined;
  const propertiesOf = (actor: Actor) => actorProperties(actor, ctx);
  return { spec, entrants, stepNames, visitSpans, groupIndex: funnel.spec.groupIndex, propertiesOf, countEventNames };
}

/**
 * visitSpans over a column table: names are tested by id, and with persons as actors each distinct id's entrant
 * is looked up once; only rows inside an entrant's span become (moving) rows.
 */
function visitColumnSpans(
  events: EventColumns,
  start: number,
  end: number,
  skipped: (name: string) => boolean,
  personsAreActors: boolean,
  actorOfEvent: (event: EventRecord) => Actor | undefined,
  entrants: ReadonlyMap<number, FunnelEntrant>,
  visit: (event: EventRecord, entrant: FunnelEntrant) => void,
): void {
  const { ts, name, did, names, distinctIds } = events.scanColumns();
  const nameSkipped = new Uint8Array(names); // 0 not looked at, 1 kept, 2 skipped
  const entrantOfDid: (FunnelEntrant | null | undefined)[] = personsAreActors ? new Array(distinctIds) : [];
  const row = events.cursor();
  for (let i = start; i < end; i++) {
    const n = name[i]!;
    if (nameSkipped[n] === 0) nameSkipped[n] = skipped(events.nameOfId(n)) ? 2 : 1;
    if (nameSkipped[n] === 2) continue;
    row.position = i;
    let entrant: FunnelEntrant | null | undefined;
    if (personsAreActors) {
      entrant = entrantOfDid[did[i]!];
      if (entrant === undefined) entrant = entrantOfDid[did[i]!] = entrants.get(actorOfEvent(row)?.id ?? NaN) ?? null;
    } else {
      const actor = actorOfEvent(row);
      entrant = actor && entrants.get(actor.id);
    }
    if (entrant && ts[i]! > entrant.from && ts[i]! < entrant.to) visit(row, entrant);
  }
}

function stepEventNames(spec: FunnelSpec, ctx: AnalysisContext): Set<string> {
  const names = new Set<string>();
  for (const step of spec.steps) {
    if (step.type === "events" && step.id !== null) names.add(String(step.id));
    if (step.type === "actions") for (const s of findAction(ctx, step.id)?.steps ?? []) if (s.event) names.add(s.event);
  }
  return names;
}

export interface Tally {
  success: Set<number>;
  failure: Set<number>;
}

/** Name → the successful and failed actors having it. */
export function contingency(population: CorrelationPopulation): Map<string, Tally> {
  const table = new Map<string, Tally>();
  const add = (name: string, entrant: FunnelEntrant) => {
    let tally = table.get(name);
    if (!tally) table.set(name, (tally = { success: new Set(), failure: new Set() }));
    (entrant.converted ? tally.success : tally.failure).add(entrant.actor.id);
  };
  const { spec } = population;
  if (spec.type === "properties") {
    for (const entrant of population.entrants.values()) for (const name of propertyValues(spec, population.propertiesOf(entrant.actor))) add(name, entrant);
  } else if (spec.type === "events") {
    population.visitSpans((event, entrant) => add(event.event, entrant));
  } else {
    const pairsOf = correlatesElements(spec.eventNames) ? (event: EventRecord) => [elementsValue(event)] : (event: EventRecord) => Object.entries(event.properties);
    population.visitSpans((event, entrant) => {
      if (!spec.eventNames.has(event.event)) return;
      for (const [key, value] of pairsOf(event)) {
        if (value !== null && value !== undefined && !spec.excludePropertyNames.has(key)) add(`${event.event}::${key}::${stringForm(value)}`, entrant);
      }
    });
  }
  return table;
}

const actorCounts = (table: Map<string, Tally>): Map<string, ActorCounts> =>
  new Map([...table].map(([name, { success, failure }]) => [name, { success: success.size, failure: failure.size }]));

/**
 * The properties property correlation reads: the person's, or with aggregation by groups the group's (PostHog joins
 * the groups table on the actor; a group without a record has none).
 */
function actorProperties(actor: Actor, ctx: AnalysisContext): Properties {
  if (actor.group) return groupLookup(ctx.groups).record(actor.group.index, actor.group.key)?.properties ?? {};
  return actor.person?.properties ?? {};
}

/**
 * `<prop>::<value>` per asked property. A named property the actor lacks has the value "" (PostHog extracts each
 * named property as a string); `$all` reads only the properties the actor has
 * (test_funnel_correlation.py::test_correlation_with_multiple_properties: "$nice::" by name, none under `$all`).
 */
function propertyValues(spec: CorrelationSpec, properties: Properties): string[] {
  const all = spec.names.includes("$all");
  const keys = all ? Object.keys(properties).filter((key) => properties[key] !== undefined && properties[key] !== null) : spec.names;
  const valueOf = (key: string) => (properties[key] === undefined || properties[key] === null ? "" : stringForm(properties[key]));
  return keys.filter((key) => !spec.excludeNames.has(key)).map((key) => `${key}::${valueOf(key)}`);
}
