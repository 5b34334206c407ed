/**
 * Why a flag came out as it did, in the words `/flags?v=2` uses (reference: flags service `flag_match_reason.rs`
 * and `FlagDetails::get_reason_description`).
 */
import type { FlagReason, ReasonCode } from "./types.ts";

/** When conditions disagree, the higher score is reported; on a tie, the later condition. */
export const REASON_SCORE: Record<"condition_match" | "out_of_rollout_bound" | "no_condition_match" | "no_group_type", number> = {
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
};
export type ConditionOutcome = keyof typeof REASON_SCORE;

export const GROUPS_NOT_EVALUATED =
  "No matching condition set (group conditions were not evaluated because no group type was provided)";

export function describe(code: ReasonCode, conditionIndex: number | null): string | null {
  switch (code) {
    case "condition_match":
      return `Matched condition set ${(conditionIndex ?? 0) + 1}`;
    case "no_condition_match":
      return "No matching condition set";
    case "out_of_rollout_bound":
      return "Out of rollout bound";
    case "no_group_type":
      return "No group type";
    case "super_condition_value":
      return "Super condition value";
    case "missing_dependency":
      return "Flag cannot be evaluated due to missing dependency";
    default:
      return null;
  }
}

export const reason = (code: ReasonCode, conditionIndex: number | null): FlagReason => ({
  code,
  condition_index: conditionIndex,
  description: describe(code, conditionIndex),
});
