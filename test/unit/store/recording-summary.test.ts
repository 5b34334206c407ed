/**
 * A recording's metadata from hand-written rrweb events (rrweb-io/rrweb packages/types: EventType,
 * IncrementalSource, MouseInteractions), counted as the real replay ingestion counts them. Every expected number
 * is worked out in the case itself.
 */
import { describe, expect, it } from "vitest";
import { activeSeconds, addToSummary, durationSeconds, emptySummary } from "../../../src/store/recording-summary.ts";

const T = Date.UTC(2024, 0, 1);
const click = (t: number, type = 2) => ({ type: 3, timestamp: t, data: { source: 2, type, id: 1, x: 0, y: 0 } });
const scroll = (t: number) => ({ type: 3, timestamp: t, data: { source: 3, id: 1, x: 0, y: 100 } });
const mutation = (t: number) => ({ type: 3, timestamp: t, data: { source: 0, texts: [], attributes: [], removes: [], adds: [] } });
const input = (t: number) => ({ type: 3, timestamp: t, data: { source: 5, id: 2, text: "x" } });
const touchMove = (t: number) => ({ type: 3, timestamp: t, data: { source: 6, positions: [] } });
const logLine = (t: number, level: string) => ({ type: 6, timestamp: t, data: { plugin: "rrweb/console@1", payload: { level } } });
const metaEvent = (t: number, href: string) => ({ type: 4, timestamp: t, data: { href } });
// posthog-js compresses a full snapshot's data to a gzip string: its type and time still count.
const gzippedFull = (t: number) => ({ type: 2, timestamp: t, cv: "2024-10", data: "\u001f\u008b\u0008..." });

const summaryOf = (...batches: unknown[][]) => batches.reduce((s, b) => addToSummary(s, b), emptySummary());

describe("recording metadata from rrweb events", () => {
  it("counts clicks (Click 2, DblClick 4, TouchEnd 9) and not the other mouse interactions", () => {
    // MouseUp 0… MouseDown 1, Click 2, ContextMenu 3, DblClick 4, Focus 5, Blur 6, TouchStart 7, TouchEnd 9.
    const s = summaryOf([0, 1, 2, 3, 4, 5, 6, 7, 9].map((type, k) => click(T + k, type)));
    expect(s.click_count).toBe(3);
    // Every mouse interaction is mouse activity: 9 of them.
    expect(s.mouse_activity_count).toBe(9);
  });

  it("counts keypresses as input events, mouse activity as mouse moves, interactions and touch moves", () => {
    const s = summaryOf([input(T), input(T + 1), { type: 3, timestamp: T + 2, data: { source: 1, positions: [] } }, touchMove(T + 3), scroll(T + 4), mutation(T + 5)]);
    expect(s.keypress_count).toBe(2);
    expect(s.mouse_activity_count).toBe(2);
    expect(s.click_count).toBe(0);
  });

  it("counts console lines by level: log/info/debug as logs, warn, error/assert as errors; other plugins not", () => {
    const s = summaryOf([logLine(T, "log"), logLine(T, "info"), logLine(T, "debug"), logLine(T, "warn"), logLine(T, "error"), logLine(T, "assert"), { type: 6, timestamp: T, data: { plugin: "rrweb/network@1", payload: { level: "error" } } }]);
    expect([s.console_log_count, s.console_warn_count, s.console_error_count]).toEqual([3, 1, 2]);
  });

  it("takes duration from first to last event over batches, and the first meta href as the start URL", () => {
    const s = summaryOf([metaEvent(T + 1000, "https://a.example/"), gzippedFull(T + 1000)], [mutation(T + 61_400), metaEvent(T + 61_400, "https://b.example/")]);
    expect(s.first_url).toBe("https://a.example/");
    // 60.4 s rounds to 60.
    expect(durationSeconds(s)).toBe(60);
    expect(s.event_count).toBe(4);
  });

  it("counts active time as stretches of input no more than 5 s apart; mutations alone are not activity", () => {
    // Stretch 1: full snapshot at 0, clicks at 3 s and 8 s (5 s apart: still one stretch) = 8 s.
    // A mutation at 20 s is no activity. Stretch 2: scroll at 30 s and input at 32.6 s = 2.6 s. Total 10.6 s -> 11.
    const s = summaryOf([gzippedFull(T), click(T + 3000), click(T + 8000), mutation(T + 20_000)], [scroll(T + 30_000), input(T + 32_600)]);
    expect(activeSeconds(s)).toBe(11);
    expect(durationSeconds(s)).toBe(33);
  });

  it("ignores what is not an rrweb event object, and events without a time for the timestamps", () => {
    const s = summaryOf([null, "x", 3, [click(T)], { type: 3, data: { source: 2, type: 2 } }]);
    expect(s.click_count).toBe(1);
    expect(s.first_timestamp).toBeNull();
    expect(durationSeconds(s)).toBe(0);
    expect(activeSeconds(s)).toBe(0);
  });
});
