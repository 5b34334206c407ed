import { gzipSync } from "node:zlib";
import LZString from "lz-string";
import { describe, expect, it } from "vitest";
import { decodeCapture, type RawCapture } from "../../../src/capture/decode.ts";
import { correctedTimestamp, normaliseEvent, parseTime, sanitiseDistinctId, toBatch } from "../../../src/capture/normalise.ts";
import { statusOf } from "../../support/api-status.ts";

const LIMIT = 1024 * 1024;
const payload = { api_key: "phc_x", batch: [{ event: "e", distinct_id: "d", properties: { a: "b+c/d" } }] };
const json = JSON.stringify(payload);
const raw = (body: Buffer | string, over: Partial<RawCapture> = {}): RawCapture => ({
  body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  contentType: "application/json",
  contentEncoding: undefined,
  query: {},
  ...over,
});

describe("decodeCapture (reference §1.2)", () => {
  const b64 = Buffer.from(json).toString("base64");
  it.each<[string, RawCapture]>([
    ["plain JSON", raw(json)],
    ["gzip by magic bytes in a text/plain body, no hint", raw(gzipSync(json), { contentType: "text/plain" })],
    ["gzip by compression=gzip-js", raw(gzipSync(json), { query: { compression: "gzip-js" } })],
    ["gzip by Content-Encoding", raw(gzipSync(json), { contentEncoding: "gzip" })],
    ["whole body base64", raw(b64, { contentType: "text/plain" })],
    ["form data= base64 whose + became spaces", raw(`data=${b64.replace(/\+/g, " ")}&compression=base64`, { contentType: "application/x-www-form-urlencoded" })],
    ["form data= plain JSON", raw(`data=${encodeURIComponent(json)}`, { contentType: "application/x-www-form-urlencoded" })],
    ["form data= lz64", raw(`data=${encodeURIComponent(LZString.compressToBase64(json))}&compression=lz64`, { contentType: "application/x-www-form-urlencoded" })],
    ["query data= base64 (old GET)", raw("", { query: { data: b64 } })],
    ["gzip holding base64 (legacy unwrap)", raw(gzipSync(b64), { contentType: "text/plain" })],
  ])("%s", (_name, input) => {
    expect(decodeCapture(input, LIMIT)).toEqual(payload);
  });

  it.each<[string, RawCapture, number, string]>([
    ["empty payload", raw(""), LIMIT, "400 empty_payload"],
    ["malformed JSON", raw("{nope"), LIMIT, "400 request_parsing_error"],
    ["bad gzip", raw(Buffer.from([0x1f, 0x8b, 0x08, 1, 2, 3])), LIMIT, "400 request_decoding_error"],
    ["a gzip bomb beyond the limit", raw(gzipSync(Buffer.alloc(4 * LIMIT, 0x20))), LIMIT, "413 payload_too_large"],
    ["a form without data", raw("x=1", { contentType: "application/x-www-form-urlencoded" }), LIMIT, "400 request_decoding_error"],
    ["deep nesting", raw(`${"[".repeat(500)}${"]".repeat(500)}`), LIMIT, "400 request_parsing_error"],
    ["a __proto__ key", raw('{"event":"e","properties":{"__proto__":{"x":1}}}'), LIMIT, "400 request_parsing_error"],
    ["a __proto__ key spelt with escapes", raw('{"event":"e","properties":{"\\u005f_proto\\u005F_":{"x":1}}}'), LIMIT, "400 request_parsing_error"],
    ["a __proto__ key in a gzipped batch", raw(gzipSync('{"batch":[{"event":"e","properties":{"a":{"__proto__":1}}}]}')), LIMIT, "400 request_parsing_error"],
  ])("%s is refused", (_name, input, limit, want) => {
    expect(statusOf(() => decodeCapture(input, limit))).toBe(want);
  });
});

describe("toBatch (reference §1.2 step 8, §1.4)", () => {
  it("reads the three shapes and their tokens", () => {
    expect(toBatch([{ event: "a", properties: { token: "t1" } }, { event: "b" }])).toMatchObject({ token: "t1", sentAt: undefined });
    expect(toBatch({ api_key: "t2", batch: [{ event: "a", token: "ignored" }], sent_at: "2024-01-01T00:00:00Z" })).toMatchObject({ token: "t2", sentAt: "2024-01-01T00:00:00Z" });
    expect(toBatch({ event: "a", $token: "t3" }).token).toBe("t3");
  });
  it("refuses inconsistent tokens and empty batches", () => {
    expect(statusOf(() => toBatch([{ token: "a" }, { token: "b" }]))).toBe("400 unroutable_events");
    expect(statusOf(() => toBatch([]))).toBe("400 empty_batch");
    expect(statusOf(() => toBatch({ api_key: "t", batch: [] }))).toBe("400 empty_batch");
  });
});

describe("distinct ids and time (reference §1.5, §1.7)", () => {
  it.each<[unknown, string | null]>([
    [7, "7"],
    [1.5, "1.5"],
    [[1, 2], "[1,2]"],
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    ["a\u0000b", "a\uFFFDb"],
    ["x".repeat(250), "x".repeat(200)],
    ["😀".repeat(150), "😀".repeat(150)],
    ["😀".repeat(201), "😀".repeat(200)],
    [null, null],
    ["", null],
  ])("%j → %j", (given, want) => expect(sanitiseDistinctId(given)).toBe(want));

  it("parses leniently", () => {
    expect(parseTime("2021-10-29")).toBe(Date.parse("2021-10-29T00:00:00Z"));
    expect(parseTime("2021-10-29 00:00:00")).toBe(Date.parse("2021-10-29T00:00:00Z"));
    expect(parseTime("2021-10-29T03:00:00+03")).toBe(Date.parse("2021-10-29T00:00:00Z"));
    expect(parseTime("nope")).toBeNull();
    expect(parseTime("9999-12-31T23:59:59.999Z")).toBe(Date.UTC(9999, 11, 31, 23, 59, 59, 999));
    expect(parseTime("+010000-01-01T00:00:00Z")).toBeNull();
    expect(parseTime("-000001-12-31T00:00:00Z")).toBeNull();
  });

  const now = Date.parse("2024-03-01T08:00:00Z");
  it("the reference's example: a client clock 65 min fast", () => {
    expect(correctedTimestamp({ timestamp: "2024-03-01T09:00:00Z", ignoreSentAt: false }, Date.parse("2024-03-01T09:05:00Z"), now)).toBe(Date.parse("2024-03-01T07:55:00Z"));
  });
  it("offset wins; no sent_at trusts the timestamp; more than 23 h ahead clamps to now; $ignore_sent_at", () => {
    expect(correctedTimestamp({ timestamp: "2020-01-01T00:00:00Z", offset: 1000, ignoreSentAt: false }, null, now)).toBe(now - 1000);
    expect(correctedTimestamp({ timestamp: "2024-02-01T00:00:00Z", ignoreSentAt: false }, null, now)).toBe(Date.parse("2024-02-01T00:00:00Z"));
    expect(correctedTimestamp({ timestamp: "2024-03-03T00:00:00Z", ignoreSentAt: false }, null, now)).toBe(now);
    expect(correctedTimestamp({ timestamp: "2024-02-01T00:00:00Z", ignoreSentAt: true }, now + 5000, now)).toBe(Date.parse("2024-02-01T00:00:00Z"));
    expect(correctedTimestamp({ ignoreSentAt: false }, null, now)).toBe(now);
  });
});

describe("normaliseEvent (reference §1.3, §2)", () => {
  const ctx = { now: Date.parse("2024-03-01T08:00:00Z"), sentAt: undefined, engage: false, ip: "10.0.0.1", newUuid: () => "0190aaaa-0000-7000-8000-00000000000f" };
  it("merges top-level $set, lifts browser properties, takes distinct_id from properties", () => {
    const e = normaliseEvent({ event: "$pageview", properties: { distinct_id: 42, $browser: "Firefox", $set: { a: 1, $browser: "mine" } }, $set: { b: 2 } }, ctx)!;
    expect(e.distinct_id).toBe("42");
    expect(e.ops.set).toEqual({ a: 1, b: 2, $browser: "mine" });
    expect(e.ops.setOnce).toEqual({ $initial_browser: "Firefox" });
    expect(e.properties.$ip).toBe("10.0.0.1");
    expect(e.uuid).toBe("0190aaaa-0000-7000-8000-00000000000f");
  });
  it("personless: person events are dropped, person operations stripped", () => {
    expect(normaliseEvent({ event: "$identify", distinct_id: "a", properties: { $process_person_profile: false } }, ctx)).toBeNull();
    const e = normaliseEvent({ event: "x", distinct_id: "a", $set: { k: 1 }, properties: { $process_person_profile: false, $set_once: { j: 1 }, $unset: ["q"] } }, ctx)!;
    expect(e.processPerson).toBe(false);
    expect(e.ops).toEqual({ set: {}, setOnce: {}, unset: [] });
    expect(e.properties).toEqual({ $process_person_profile: false, $ip: "10.0.0.1" });
  });
  it("/engage/ turns a nameless event into $identify; elsewhere it is a 400", () => {
    expect(normaliseEvent({ distinct_id: "jo", properties: {} }, { ...ctx, engage: true })!.event).toBe("$identify");
    expect(statusOf(() => normaliseEvent({ distinct_id: "jo" }, ctx))).toBe("400 missing_event_name");
  });
  it("refuses a missing distinct id, a non-UUID uuid and a non-boolean $cookieless_mode", () => {
    expect(statusOf(() => normaliseEvent({ event: "e", distinct_id: null }, ctx))).toBe("400 missing_distinct_id");
    expect(statusOf(() => normaliseEvent({ event: "e", distinct_id: "a", uuid: "nope" }, ctx))).toBe("400 invalid_uuid");
    expect(statusOf(() => normaliseEvent({ event: "e", distinct_id: "a", properties: { $cookieless_mode: "yes" } }, ctx))).toBe("400 invalid_cookieless_mode");
  });
});
