import { VIRTUAL_PERSON_PROPERTIES } from "./virtual-person-properties.ts";

/** Virtual person properties (src/core/virtual-person-properties.ts) are read like stored ones, which never shadow them. */
export const isVirtualPersonProperty = (key: string): boolean => VIRTUAL_PERSON_PROPERTIES.has(key);

/** Each derived value per properties object: a person's properties are replaced, never edited, when they change. */
const derived = new WeakMap<object, Map<string, unknown>>();

/** The value of one of the person's properties, virtual ones derived (once per version of the properties). */
export function personPropertyValue(person: { properties: Record<string, unknown> } | undefined, key: string): unknown {
  if (!person) return undefined;
  const derive = VIRTUAL_PERSON_PROPERTIES.get(key);
  if (!derive) return person.properties[key];
  let values = derived.get(person.properties);
  if (!values) derived.set(person.properties, (values = new Map()));
  if (!values.has(key)) values.set(key, derive(person.properties));
  return values.get(key);
}
