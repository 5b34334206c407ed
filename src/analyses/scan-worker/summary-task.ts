import { tallyTask } from "../parallel/scan-task.ts";
import { newSummaryTally, summaryRows, type SummaryColumns, type SummaryJob, type SummaryTally } from "../../store/columns/event-summary.ts";

/**
 * The taxonomy's row chunks (src/store/columns/event-summary.ts): one tally per thread, merged by the caller. Defined here,
 * beside the worker's table, as the store may not import the analyses' scan machinery.
 */
export const summaryTask = tallyTask<SummaryColumns, SummaryJob, SummaryTally>("summary", newSummaryTally, summaryRows);
