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

export const isoUtc = (ms: number): string => new Date(ms).toISOString();
