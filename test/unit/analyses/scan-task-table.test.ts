/**
 * The scan workers find a task by the name the pool posts (src/analyses/scan-worker/task-table.ts). A task a kind
 * defines but the table misses would fail in every worker and run on the main thread alone, silently slower.
 */
import { expect, it } from "vitest";
import * as correlationTasks from "../../../src/analyses/correlation/scan-tasks.ts";
import * as funnelTasks from "../../../src/analyses/funnels/scan-tasks.ts";
import * as countKernel from "../../../src/analyses/parallel/count-kernel.ts";
import * as pathsTasks from "../../../src/analyses/paths/scan-tasks.ts";
import * as summaryTasks from "../../../src/analyses/scan-worker/summary-task.ts";
import { SCAN_TASKS, TASK_BY_NAME } from "../../../src/analyses/scan-worker/task-table.ts";
import * as firstSeenTasks from "../../../src/analyses/shared/first-seen-task.ts";

const isTask = (value: unknown): value is { name: string; run: unknown } =>
  typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string" && typeof (value as { run?: unknown }).run === "function";

it("lists every task once, under the names the workers' protocol uses", () => {
  expect([...TASK_BY_NAME.keys()].sort()).toEqual(["correlate", "count", "firstSeen", "funnel", "funnelRows", "paths", "pathsActors", "pathsItems", "pathsRows", "summary"]);
  expect(TASK_BY_NAME.size).toBe(SCAN_TASKS.length);
});

it("holds every task the analysis kinds define", () => {
  const defined = [correlationTasks, funnelTasks, countKernel, pathsTasks, summaryTasks, firstSeenTasks].flatMap((module) => Object.values(module).filter(isTask));
  expect(defined).toHaveLength(10);
  for (const task of defined) expect(TASK_BY_NAME.get(task.name)).toBe(task.run);
});
