import type { State } from "../store/schema.ts";

/**
 * A copy of a state that later writes cannot reach. Events and activity entries are never mutated in place
 * (deletions replace the array), so their arrays are copied shallowly; the rest is cloned deeply.
 */
export function snapshotOf(state: State): State {
  return {
    meta: structuredClone(state.meta),
    persons: structuredClone(state.persons),
    events: state.events.slice(),
    activity: state.activity.slice(),
  };
}
