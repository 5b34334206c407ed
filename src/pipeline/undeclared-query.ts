import type { Operation } from "openapi-backend";
import { editDistance } from "../core/edit-distance.ts";

/**
 * The query parameters an operation takes: its declared names, and the names a free-form parameter (an object
 * with `style: form`) lets through, by its `propertyNames` pattern or, without one, any name.
 */
interface DeclaredQuery {
  names: Set<string>;
  freeForm: RegExp[];
  anyName: boolean;
}

interface QueryParameter {
  in?: string;
  name?: string;
  schema?: { type?: string; propertyNames?: { pattern?: string } };
}

const declaredByOperation = new WeakMap<Operation, DeclaredQuery>();

function declaredQueryOf(operation: Operation): DeclaredQuery {
  let declared = declaredByOperation.get(operation);
  if (declared) return declared;
  declared = { names: new Set(), freeForm: [], anyName: false };
  for (const parameter of (operation.parameters ?? []) as QueryParameter[]) {
    if (parameter.in !== "query" || parameter.name === undefined) continue;
    declared.names.add(parameter.name);
    if (parameter.schema?.type !== "object") continue;
    const pattern = parameter.schema.propertyNames?.pattern;
    if (pattern === undefined) declared.anyName = true;
    // The document's own pattern, not a user's: plain RegExp.
    else declared.freeForm.push(new RegExp(pattern, "u"));
  }
  declaredByOperation.set(operation, declared);
  return declared;
}

const takes = (declared: DeclaredQuery, name: string) => declared.anyName || declared.names.has(name) || declared.freeForm.some((pattern) => pattern.test(name));

/** A declared name one or two edits away (a typo), for the note; none when nothing is that close. */
function likelyMeant(name: string, declared: DeclaredQuery): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of declared.names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= 2 && distance < name.length && (!best || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/**
 * Removes from `query` the parameters the operation does not take, and returns the request log's note for each.
 * The real service (Django REST Framework) ignores a query parameter it does not read, so an app's request that
 * it answers is answered here the same way; the note says what was ignored, and the name likely meant.
 */
export function dropUndeclaredQuery(operation: Operation, query: Record<string, unknown>): string[] {
  const declared = declaredQueryOf(operation);
  if (declared.anyName) return [];
  const notes: string[] = [];
  for (const name of Object.keys(query)) {
    if (takes(declared, name)) continue;
    delete query[name];
    const meant = likelyMeant(name, declared);
    notes.push(`query parameter "${name}" ignored: ${operation.operationId} does not take it (the real service ignores it too)${meant ? `; did you mean "${meant}"?` : ""}`);
  }
  return notes;
}
