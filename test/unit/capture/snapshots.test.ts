/**
 * `/s/` payloads to recording blocks, and remote config's `sessionRecording` from a project's settings
 * (PostHog/posthog posthog/models/remote_config.py `build_config`, "MARK: Session Recording").
 */
import { describe, expect, it } from "vitest";
import { sessionRecordingConfig } from "../../../src/capture/session-recording-config.ts";
import { snapshotBlocks } from "../../../src/capture/snapshots.ts";
import { ApiError } from "../../../src/core/errors.ts";
import { CLIENT_SETTING_DEFAULTS, type ClientSettings } from "../../../src/store/project-settings.ts";

const ev = (session: unknown, window: unknown, data: unknown, distinctId: unknown = "d") => ({ event: "$snapshot", distinct_id: distinctId, properties: { $session_id: session, $window_id: window, $snapshot_data: data } });

describe("snapshot blocks", () => {
  it("groups a request's events per session and window, in the order first seen", () => {
    const blocks = snapshotBlocks([ev("s1", "w1", [{ type: 2 }]), ev("s2", "w1", [{ type: 3 }]), ev("s1", "w1", { type: 4 }), ev("s1", "w2", [])]);
    expect(blocks.map((b) => [b.session_id, b.window_id, b.events.length])).toEqual([
      ["s1", "w1", 2],
      ["s2", "w1", 1],
      ["s1", "w2", 0],
    ]);
  });

  it("refuses a missing session id or snapshot data, naming the property", () => {
    const attrOf = (raw: Record<string, unknown>) => {
      try {
        snapshotBlocks([raw]);
        return "accepted";
      } catch (e) {
        return (e as ApiError).body.attr ?? (e as ApiError).body.code;
      }
    };
    expect(attrOf(ev("", "w", []))).toBe("$session_id");
    expect(attrOf(ev(7, "w", []))).toBe("$session_id");
    expect(attrOf(ev("s", "w", "gzipped?"))).toBe("$snapshot_data");
    expect(attrOf(ev("s", "w", [], null))).toBe("missing_distinct_id");
    expect(attrOf(ev("s", undefined, []))).toBe("accepted");
  });
});

const settings = (over: Partial<ClientSettings>): ClientSettings => ({ ...CLIENT_SETTING_DEFAULTS, ...over });

describe("remote config's sessionRecording", () => {
  it("is false unless the project opted in", () => {
    expect(sessionRecordingConfig(settings({}))).toBe(false);
    expect(sessionRecordingConfig(settings({ session_recording_opt_in: false, session_recording_sample_rate: "0.5" }))).toBe(false);
  });

  it("carries the options as the real build_config writes them", () => {
    expect(sessionRecordingConfig(settings({ session_recording_opt_in: true, capture_console_log_opt_in: false, session_recording_sample_rate: "0.25", session_recording_minimum_duration_milliseconds: 2000, session_recording_linked_flag: { id: 3, key: "beta" } }))).toEqual({
      endpoint: "/s/",
      consoleLogRecordingEnabled: false,
      recorderVersion: "v2",
      sampleRate: "0.25",
      minimumDurationMilliseconds: 2000,
      linkedFlag: "beta",
      networkPayloadCapture: null,
      urlTriggers: null,
      urlBlocklist: null,
      eventTriggers: null,
    });
  });

  it('sends no rate for "1.00", no minimum for 0, and {flag, variant} for a linked variant', () => {
    const config = sessionRecordingConfig(settings({ session_recording_opt_in: true, session_recording_sample_rate: "1.00", session_recording_minimum_duration_milliseconds: 0, session_recording_linked_flag: { id: 3, key: "beta", variant: "test" } }));
    expect(config).toMatchObject({ sampleRate: null, minimumDurationMilliseconds: null, linkedFlag: { flag: "beta", variant: "test" }, consoleLogRecordingEnabled: true });
  });
});
