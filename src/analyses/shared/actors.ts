import type { PersonRecord } from "../../store/schema.ts";
import type { AnalysisContext } from "./context.ts";

/**
 * An actor is the person that currently owns an event's distinct id: merged ids collapse into one person,
 * an unknown id is its own person (reference: analytics §1.1, §11 item 1).
 */
export interface Actor {
  /** person.id, or a negative number unique to an unknown distinct id. */
  id: number;
  person: PersonRecord | undefined;
  /** Dense 0, 1, 2 … per resolver, in order of first appearance: an index for per-actor arrays. */
  slot: number;
  /** Set when the actor is a group (aggregation by a group type): `id` is then a dense number for this analysis only. */
  group?: { index: number; key: string };
}

/** What an actors endpoint lists for an actor: a person id, or a group key. */
export const actorKey = (actor: Actor): number | string => actor.group?.key ?? actor.id;

export interface ActorOf {
  (distinctId: string): Actor;
  /** Number of actors resolved so far (slots are 0 … count−1). */
  count(): number;
}

/** One Map per analysis call: each distinct id is looked up once. */
export function actorResolver(ctx: Pick<AnalysisContext, "personOf">): ActorOf {
  const byDistinctId = new Map<string, Actor>();
  const byPersonId = new Map<number, Actor>();
  let nextAnonymous = -1;
  const resolve = (distinctId: string): Actor => {
    let actor = byDistinctId.get(distinctId);
    if (actor === undefined) {
      const person = ctx.personOf(distinctId);
      actor = person ? byPersonId.get(person.id) : undefined;
      if (!actor) {
        actor = { id: person ? person.id : nextAnonymous--, person, slot: byPersonId.size };
        byPersonId.set(actor.id, actor);
      }
      byDistinctId.set(distinctId, actor);
    }
    return actor;
  };
  return Object.assign(resolve, { count: () => byPersonId.size });
}
