/**
 * First- and last-touch attribution, the one rule both funnel engines follow (attribution.ts over journeys,
 * partition.ts over the columns): over an actor's step events in time order, whether one that carries a breakdown
 * value replaces the value kept so far. First touch keeps the first value found; last touch takes every later one.
 */
export const touchTakes = (last: boolean, kept: boolean, carries: boolean): boolean => carries && (last || !kept);
