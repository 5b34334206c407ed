import { tallyTask } from "../parallel/scan-task.ts";
import { correlateRows, type CorrelationColumns, type CorrelationJob } from "./partition.ts";

/** Event correlation's row chunks: one bitset per name over actor slots, OR'ed by the caller. */
export const correlateTask = tallyTask<CorrelationColumns, CorrelationJob, Int32Array>("correlate", (job) => new Int32Array(job.names * job.words), correlateRows);
