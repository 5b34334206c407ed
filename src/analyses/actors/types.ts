import type { ActorKey } from "../trends/maths.ts";

export type { ActorKey } from "../trends/maths.ts";

/**
 * One actor behind a data point. `key` is a person id (a negative id is a distinct id without a person, a string
 * a group key); `value` is the actor's share of the number when the number counts more than actors (events of a
 * `total` trend, paths through an edge), otherwise null. The count of rows, or the sum of values, is the number.
 */
export interface ActorRow {
  key: ActorKey;
  value: number | null;
  /** Set when the actors are groups: the group type of `key` (a group key). */
  groupTypeIndex?: number;
  /** Retention: the values of the selected cohort's row the actor counts in (0, its cohort; then periods or brackets), ascending. */
  appearances?: number[];
}

/** Marks rows as groups of one type when the analysis aggregated by groups (index defined). */
export const asGroups = (rows: ActorRow[], groupTypeIndex: number | undefined): ActorRow[] =>
  groupTypeIndex === undefined ? rows : rows.map((row) => ({ ...row, groupTypeIndex }));

/** Rows from a key → share map (share null when every actor counts once), largest share first, then by key. */
export function actorRows(shares: ReadonlyMap<ActorKey, number | null>): ActorRow[] {
  return [...shares]
    .map(([key, value]) => ({ key, value }))
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0) || compareKeys(a.key, b.key));
}

const compareKeys = (a: ActorKey, b: ActorKey): number =>
  typeof a === "number" && typeof b === "number" ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;

/** Every actor of a set counts once. */
export const onceEach = (keys: Iterable<ActorKey>): ActorRow[] => actorRows(new Map([...keys].map((key) => [key, null])));
