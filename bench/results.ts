/** What a bench run measured, collected by the scenarios and read by the report. */

export interface LoadResult {
  server: string;
  endpoint: string;
  connections: number;
  rps: number;
  rpsMin: number;
  rpsMax: number;
  p50: number;
  p99: number;
  requests: number;
  unexpected: number;
  errors: number;
}

export const results: LoadResult[] = [];

export interface Startup {
  what: string;
  ms: number;
  rssMb: number;
  note?: string;
}
export const startups: Startup[] = [];
export const notes: string[] = [];

/** A costlier analysis next to its plain counterpart, in process (issue 14: group funnels, session breakdowns ≤ 2×). */
export interface CounterpartRatio {
  label: string;
  counterpart: string;
  ms: number;
  counterpartMs: number;
  limit: number;
}
export const counterparts: CounterpartRatio[] = [];

/**
 * The ratios the targets name, measured interleaved (bench/scenarios/http.ts). Each target's ratio is the
 * median of the per-round ratios.
 */
export interface InterleavedRatio {
  label: string;
  perRound: number[];
  ours: number[];
  other: number[];
}
export const interleaved: InterleavedRatio[] = [];

export interface InProcess {
  events: number;
  ms: Record<string, number>;
}
export const inProcess: InProcess[] = [];

export type ScaleAnalysis = "trend total" | "trend dau" | "trend $browser breakdown" | "funnel 3 steps";
/** One start of the scale scenario (issue 16): how it started, and the analyses' medians through HTTP. */
export interface ScaleRun {
  events: number;
  source: string;
  startupMs: number;
  rssMb: number;
  p50: Record<ScaleAnalysis, number> | null;
  note?: string;
}
export const scaleRuns: ScaleRun[] = [];
