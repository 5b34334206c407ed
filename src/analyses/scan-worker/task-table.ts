import { correlateTask } from "../correlation/scan-tasks.ts";
import { funnelPartsTask, funnelRowsTask } from "../funnels/scan-tasks.ts";
import { countTask } from "../parallel/count-kernel.ts";
import type { TaskRun } from "../parallel/scan-task.ts";
import { pathsActorsTask, pathsItemsTask, pathsPartsTask, pathsRowsTask } from "../paths/scan-tasks.ts";
import { firstSeenTask } from "../shared/first-seen-task.ts";
import { summaryTask } from "./summary-task.ts";

/**
 * Every scan task a worker can run, by the name the pool posts: each analysis kind defines its tasks beside its
 * kernels and the pool posts a task's name, so only this table, which nothing but the worker imports, knows them all.
 * A task missing here fails in the worker, and its scans run on the main thread alone.
 */
export const SCAN_TASKS = [countTask, funnelRowsTask, funnelPartsTask, pathsItemsTask, pathsRowsTask, pathsPartsTask, pathsActorsTask, correlateTask, firstSeenTask, summaryTask];

export const TASK_BY_NAME: ReadonlyMap<string, TaskRun<never, never, unknown>> = new Map(SCAN_TASKS.map((task) => [task.name, task.run as TaskRun<never, never, unknown>]));
