/** When queued person-event deletions run: a weekday (0 = Sunday) and an hour, UTC (spec: 05:00 UTC every Sunday). */
export interface DeletionSchedule {
  weekday: number;
  hour: number;
}

export const DEFAULT_DELETION_SCHEDULE: DeletionSchedule = { weekday: 0, hour: 5 };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The first scheduled slot strictly after `now` (epoch ms). */
export function nextDeletionRun(now: number, schedule: DeletionSchedule = DEFAULT_DELETION_SCHEDULE): number {
  const d = new Date(now);
  const todayStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const daysAhead = (schedule.weekday - d.getUTCDay() + 7) % 7;
  const candidate = todayStart + daysAhead * DAY + schedule.hour * HOUR;
  return candidate > now ? candidate : candidate + 7 * DAY;
}

/** Parses "SUN 05:00" style settings (day name, UTC hour). */
export function parseDeletionSchedule(text: string): DeletionSchedule {
  const m = /^(SUN|MON|TUE|WED|THU|FRI|SAT)\s+(\d{1,2}):00$/i.exec(text.trim());
  if (!m) throw new Error(`deletion schedule must look like "SUN 05:00", got "${text}"`);
  const hour = Number(m[2]);
  if (hour > 23) throw new Error(`deletion schedule hour must be 0–23, got ${hour}`);
  return { weekday: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"].indexOf(m[1]!.toUpperCase()), hour };
}
