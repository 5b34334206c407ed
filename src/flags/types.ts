/**
 * Feature-flag definitions and results, in the real API's snake_case JSON shapes
 * (reference: PostHog `posthog/models/feature_flag/types.py`, flags service `flag_models.rs`).
 */

export const PROPERTY_OPERATORS = [
  "exact",
  "is_not",
  "icontains",
  "not_icontains",
  "icontains_multi",
  "not_icontains_multi",
  "starts_with",
  "not_starts_with",
  "ends_with",
  "not_ends_with",
  "regex",
  "not_regex",
  "gt",
  "gte",
  "lt",
  "lte",
  "between",
  "not_between",
  "is_set",
  "is_not_set",
  "is_date_exact",
  "is_date_before",
  "is_date_after",
  "semver_eq",
  "semver_neq",
  "semver_gt",
  "semver_gte",
  "semver_lt",
  "semver_lte",
  "semver_tilde",
  "semver_caret",
  "semver_wildcard",
  "in",
  "not_in",
  "flag_evaluates_to",
] as const;
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number];

export const PROPERTY_FILTER_TYPES = ["person", "group", "cohort", "flag"] as const;
export type PropertyFilterType = (typeof PROPERTY_FILTER_TYPES)[number];

export interface PropertyFilter {
  key: string;
  /** Absent or null means "exact" (the flags service's default). */
  operator?: PropertyOperator | string | null;
  value?: unknown;
  /** Absent means "person". */
  type?: PropertyFilterType | string;
  group_type_index?: number | null;
  /** Cohort definitions only: invert this filter's result. */
  negation?: boolean;
  /** Added by the local-evaluation definitions for `flag` filters. */
  dependency_chain?: string[];
}

export interface FlagCondition {
  properties?: PropertyFilter[] | null;
  /** null or absent = 100. */
  rollout_percentage?: number | null;
  variant?: string | null;
  /** Per-condition aggregation; absent = the flag's, null = persons. */
  aggregation_group_type_index?: number | null;
}

export interface FlagVariant {
  key: string;
  name?: string | null;
  rollout_percentage: number;
}

export interface FlagFilters {
  groups?: FlagCondition[];
  multivariate?: { variants: FlagVariant[] } | null;
  /** variant key (or "true") -> JSON text. */
  payloads?: Record<string, string | unknown>;
  aggregation_group_type_index?: number | null;
  /** Early access enrolment: the first condition decides before `groups` once the person has one of its properties (src/flags/evaluate.ts). */
  super_groups?: FlagCondition[] | null;
  [extra: string]: unknown;
}

export interface FeatureFlagDefinition {
  id: number;
  key: string;
  name: string;
  active: boolean;
  deleted: boolean;
  ensure_experience_continuity: boolean;
  version?: number;
  filters: FlagFilters;
}

export interface EvaluationSubject {
  distinctId: string;
  /**
   * Hash keys by flag key, for ensure_experience_continuity flags: the $anon_distinct_id the person had when
   * first evaluated (the person's stored overrides) — hashing uses it instead of distinctId.
   */
  hashKeyOverrides?: ReadonlyMap<string, string>;
  /** Already merged by the caller (stored person + the request's person_properties). */
  personProperties: Record<string, unknown>;
  /** Group type name -> group key (from the request). */
  groups: Record<string, string>;
  /** Group type name -> properties. */
  groupProperties: Record<string, Record<string, unknown>>;
  /** aggregation_group_type_index -> name. */
  groupTypeName(index: number): string | undefined;
  /** undefined = unknown cohort. */
  inCohort(cohortId: number): boolean | undefined;
}

export const REASON_CODES = [
  "condition_match",
  "no_condition_match",
  "out_of_rollout_bound",
  "no_group_type",
  "missing_dependency",
  "dependency_not_found",
  "super_condition_value",
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export interface FlagReason {
  code: ReasonCode;
  condition_index: number | null;
  /** null only for evaluation errors, as the flags service sends them. */
  description: string | null;
}

export interface FlagEvaluation {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: FlagReason;
  /** Parsed JSON of the matched payload; undefined when disabled or none is set. */
  payload: unknown;
  id: number;
  version: number;
  /** True when the real service would answer an error for this flag (it also sets errorsWhileComputingFlags). */
  errored: boolean;
}
