import { tallyTask } from "../parallel/scan-task.ts";
import { firstSeenRows, type FirstSeenColumns, type FirstSeenJob } from "./first-seen-rows.ts";

/** First-seen row chunks: one time per distinct id, the earlier kept by the caller. */
export const firstSeenTask = tallyTask<FirstSeenColumns, FirstSeenJob, Float64Array>("firstSeen", (job) => new Float64Array(job.distinctIds).fill(Infinity), firstSeenRows);
