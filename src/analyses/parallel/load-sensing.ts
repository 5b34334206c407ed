import { loadavg } from "node:os";
import { scanSettings } from "./scan-settings.ts";

/** (time, this process's CPU time), both in ms, about one a second over the last minute. */
const cpuSamples: [number, number][] = [];

/**
 * This process's own part of the load average: its threads' CPU time per second over about the last minute (the
 * load average's own span). Our scans would otherwise count as other jobs, and a busy server would stop using its
 * workers exactly when it needs them.
 */
function ownLoad(): number {
  const now = performance.now();
  const { user, system } = process.cpuUsage();
  const used = (user + system) / 1000;
  if (cpuSamples.length === 0 || now - cpuSamples[cpuSamples.length - 1]![0] >= 1000) cpuSamples.push([now, used]);
  while (cpuSamples.length > 2 && now - cpuSamples[1]![0] >= 60_000) cpuSamples.shift();
  const [since, usedThen] = cpuSamples[0]!;
  return now - since < 1000 ? 0 : (used - usedThen) / (now - since);
}

/** Whether other jobs keep every core busy: the load average without our own part reaches `maxLoad`. */
export const othersBusy = (): boolean => loadavg()[0]! - ownLoad() >= scanSettings.maxLoad;
