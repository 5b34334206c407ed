/**
 * The analyses' own error: which input field was invalid and why. The analysis layer knows nothing of HTTP;
 * `src/core/errors.ts` maps this to the API's 400 body at the edge.
 */
export class AnalysisInputError extends Error {
  constructor(
    /** The input field's path joined with `__` (`events__0__math`), or null when no one field is at fault. */
    readonly attr: string | null,
    detail: string,
    readonly code: AnalysisErrorCode = "invalid_input",
  ) {
    super(detail);
    this.name = "AnalysisInputError";
  }
}

/**
 * The error codes the analyses give: the general ones, and the funnel validation rules' own, as PostHog's
 * funnel_validation_rules.py names them (test_funnel_validation_rules.py asserts them).
 */
export type AnalysisErrorCode =
  | "invalid_input"
  | "required"
  | "timeout_exceeded"
  | "memory_limit_exceeded"
  | "too_many_rows"
  | "query_cancelled"
  | "funnels_require_at_least_two_steps"
  | "funnel_step_range_invalid"
  | "funnel_exclusions_invalid"
  | "funnel_optional_steps_invalid";

/** Rejections raised by the analyses' validation rules. */
export const reject = {
  invalid: (attr: string | null, detail: string, code: AnalysisErrorCode = "invalid_input") => new AnalysisInputError(attr, detail, code),
  required: (attr: string) => new AnalysisInputError(attr, "This field is required.", "required"),
};
