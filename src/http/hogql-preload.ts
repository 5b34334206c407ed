import { hogqlLoaded, loadHogql } from "../hogql/parse.ts";
import type { Store } from "../store/store.ts";
import { nestsDeeperThan } from "../util/json-depth.ts";

const MENTION = /hogql/i;
/** Where analyses run: insights (and their analysis endpoints) and the actors endpoints under persons. */
const ANALYSIS_PATH = /\/(insights|persons)\//;

/**
 * The analyses are synchronous, but PostHog's HogQL parser loads asynchronously (and is too large to load at
 * start-up for everyone). So before a request that may evaluate HogQL — its URL or insight body mentions it
 * (`breakdown_type: "hogql"`, `math: "hogql"`), or a stored insight does — the parser is loaded once.
 */
export function hogqlPreloader(store: Store) {
  let scannedRevision = -1;
  let storedMention = false;
  // An insight's definition is replaced, never edited in place, by a write: memoised per object, a rescan
  // after a write serialises only what changed (serialising every insight made each write O(insights)).
  const definitionMentions = new WeakMap<object, boolean>();
  const mentions = (definition: object | null): boolean => {
    if (definition === null) return false;
    let known = definitionMentions.get(definition);
    if (known === undefined) definitionMentions.set(definition, (known = MENTION.test(JSON.stringify(definition))));
    return known;
  };
  const storeMentions = (): boolean => {
    if (store.revision() !== scannedRevision) {
      scannedRevision = store.revision();
      storedMention = store.snapshot().meta.insights.some((insight) => mentions(insight.filters) || mentions(insight.query));
    }
    return storedMention;
  };
  return async (req: { originalUrl: string; path: string; body: unknown }): Promise<void> => {
    if (hogqlLoaded()) return;
    if (MENTION.test(decodeURIComponentSafe(req.originalUrl))) return void (await loadHogql());
    if (!ANALYSIS_PATH.test(req.path)) return;
    // A body too deep to serialise is refused before any analysis runs: nothing to preload for it.
    const bodyMentions = req.body !== null && typeof req.body === "object" && !nestsDeeperThan(req.body) && MENTION.test(JSON.stringify(req.body));
    if (bodyMentions || storeMentions()) await loadHogql();
  };
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
