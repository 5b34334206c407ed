import type { State } from "../store/schema.ts";

/**
 * A copy of a state that later writes cannot reach. Activity entries are never mutated in place, so their
 * array is copied shallowly; the event tables are shared until either side changes; the rest is cloned deeply.
 */
export function snapshotOf(state: State): State {
  return {
    meta: structuredClone(state.meta),
    persons: structuredClone(state.persons),
    events: state.events.share(),
    activity: state.activity.slice(),
  };
}
