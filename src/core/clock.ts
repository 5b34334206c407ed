import { isoUtc } from "./iso-time.ts";

/** The one source of "now": frozen for tests and fixtures, the wall clock otherwise. */
export interface Clock {
  now(): number;
  isFrozen(): boolean;
  /** Freeze at an instant (epoch ms). */
  set(ms: number): void;
  /** Move a frozen clock forward (or freeze it at now + ms). */
  advance(ms: number): void;
  /** Back to the wall clock. */
  unfreeze(): void;
}

export function createClock(frozenAt: number | null = null): Clock {
  let frozen = frozenAt;
  return {
    now: () => frozen ?? Date.now(),
    isFrozen: () => frozen !== null,
    set: (ms) => {
      frozen = ms;
    },
    advance: (ms) => {
      frozen = (frozen ?? Date.now()) + ms;
    },
    unfreeze: () => {
      frozen = null;
    },
  };
}

/**
 * The instants an RFC 3339 date-time can write, years 0000 to 9999. The clock never leaves them, so every
 * answer can print "now" (past them `toISOString()` writes `+010000-…` or throws).
 */
export const CLOCK_RANGE = { min: Date.parse("0000-01-01T00:00:00.000Z"), max: Date.parse("9999-12-31T23:59:59.999Z") } as const;

export const isPrintableInstant = (ms: number): boolean => Number.isFinite(ms) && ms >= CLOCK_RANGE.min && ms <= CLOCK_RANGE.max;

/**
 * An instant some time after another, as an RFC 3339 date-time: at most the last printable one (a clock near
 * 9999-12-31 plus an insight's refresh interval would print `+010000-…`, which no client parses).
 */
export const isoUtcAfter = (ms: number, afterMs: number): string => isoUtc(Math.min(ms + afterMs, CLOCK_RANGE.max));
