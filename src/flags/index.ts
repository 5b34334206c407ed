export type * from "./types.ts";
export { PROPERTY_OPERATORS, REASON_CODES } from "./types.ts";
export { evaluateFlags } from "./evaluate.ts";
export { matchProperty } from "./property-match.ts";
export { cohortMatches, cohortMembership, type CohortFilters, type CohortPropertyGroup, type CohortLookup } from "./cohort.ts";
export { buildLocalEvaluationBody, type CohortDefinition, type LocalEvaluationBody, type LocalEvaluationInput } from "./definitions.ts";
export { flagHash } from "./hash.ts";
export { parseRelativeDate } from "./dates.ts";
