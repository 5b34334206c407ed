import { initialChannelType } from "./channel-rules.ts";

/**
 * Virtual person properties: derived from the stored ones (PostHog/posthog posthog/hogql/database/schema/persons.py,
 * the persons table's `$virt_*` fields). The analyses read them like stored properties (without caching here:
 * src/core/person-property-read.ts keeps each value per version of the properties) and the engine's mirror
 * stores each as a column of its persons table, computed by the same function.
 */
export const VIRTUAL_PERSON_PROPERTIES: ReadonlyMap<string, (properties: Readonly<Record<string, unknown>>) => string> = new Map([["$virt_initial_channel_type", initialChannelType]]);

export const VIRTUAL_PERSON_PROPERTY_NAMES: readonly string[] = [...VIRTUAL_PERSON_PROPERTIES.keys()];
