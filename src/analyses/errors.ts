/**
 * The analyses' own error: which input field was invalid and why. The analysis layer knows nothing of HTTP;
 * `src/http/errors.ts` maps this to the API's 400 body at the edge.
 */
export class AnalysisInputError extends Error {
  constructor(
    /** The input field's path joined with `__` (`events__0__math`), or null when no one field is at fault. */
    readonly attr: string | null,
    detail: string,
    readonly code: "invalid_input" | "required" | "timeout_exceeded" | "memory_limit_exceeded" | "too_many_rows" | "query_cancelled" = "invalid_input",
  ) {
    super(detail);
    this.name = "AnalysisInputError";
  }
}

/** Rejections raised by the analyses' validation rules. */
export const reject = {
  invalid: (attr: string | null, detail: string) => new AnalysisInputError(attr, detail),
  required: (attr: string) => new AnalysisInputError(attr, "This field is required.", "required"),
};
