/**
 * Capture request bodies, decoded in the real service's order (reference: ingestion-persons-events §1.2):
 * payload source → whole-body base64 → form `data=` → compression hint → gunzip / LZ-String → legacy base64
 * unwrap → size check → JSON. Pure: bytes and headers in, a JSON value out, or a captureFail error.
 */
import { gunzipSync } from "node:zlib";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../util/json-depth.ts";
import { captureFail } from "./errors.ts";
import { decompressLz64 } from "./lz64.ts";

export interface RawCapture {
  body: Buffer;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** Query parameters; repeated ones keep their first value. */
  query: Record<string, string | undefined>;
}

const GZIP_MAGIC = [0x1f, 0x8b, 0x08];
const STRICT_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

const looksBase64 = (text: string) => text.length % 4 === 0 && text.length >= 4 && STRICT_BASE64.test(text);
const startsWithGzipMagic = (bytes: Buffer) => GZIP_MAGIC.every((b, i) => bytes[i] === b);

/** Where the payload is: a non-empty `data` query parameter (old browser GETs), else the body. */
function payloadOf(raw: RawCapture): { bytes: Buffer; fromQuery: boolean } {
  const data = raw.query.data;
  if (data) return { bytes: Buffer.from(data, "utf8"), fromQuery: true };
  if (raw.body.length === 0) throw captureFail.emptyPayload();
  return { bytes: raw.body, fromQuery: false };
}

/** Form decoding turned base64's `+` into spaces; put them back before judging the value (reference §1.2 step 3). */
const unspace = (value: string) => value.replace(/ /g, "+");

function gunzip(bytes: Buffer, limit: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: limit });
  } catch (e) {
    if (e instanceof RangeError || (e as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw captureFail.tooLarge(limit);
    throw captureFail.decoding("the body is not valid gzip");
  }
}

/** Stops at `limit` characters while decoding (a character is at least one UTF-8 byte): lz64 bodies can be bombs too. */
function lz64(text: string, limit: number): string {
  const decoded = decompressLz64(unspace(text), limit);
  if (!decoded.ok && decoded.reason === "too_large") throw captureFail.tooLarge(limit);
  if (!decoded.ok || decoded.text === "") throw captureFail.decoding("the body is not valid lz64");
  return decoded.text;
}

/** Text of the payload after form, base64 and compression decoding. */
function decodedText(raw: RawCapture, limit: number): string {
  const { bytes, fromQuery } = payloadOf(raw);
  const isForm = !fromQuery && (raw.contentType ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded");
  let compression = (raw.query.compression ?? "").toLowerCase();
  let data: Buffer | string = bytes;
  if (isForm) {
    const form = new URLSearchParams(bytes.toString("latin1"));
    const value = form.get("data");
    if (value === null || value === "") throw captureFail.decoding("the form has no data field");
    compression = (form.get("compression") ?? compression).toLowerCase();
    data = value;
  } else if (fromQuery) {
    data = bytes.toString("utf8");
  }
  if (typeof data === "string") {
    if (compression === "lz64") return lz64(data, limit);
    const unspaced = unspace(data.trim());
    if (looksBase64(unspaced)) data = Buffer.from(unspaced, "base64");
    else return data;
  } else if (!startsWithGzipMagic(data) && compression !== "gzip" && compression !== "gzip-js") {
    const text = data.toString("latin1").trim();
    if (compression === "lz64") return lz64(data.toString("utf8"), limit);
    if (looksBase64(text)) data = Buffer.from(text, "base64");
  }
  const gzipHinted = compression === "gzip" || compression === "gzip-js" || /\bgzip\b/i.test(raw.contentEncoding ?? "");
  if (gzipHinted || startsWithGzipMagic(data)) data = gunzip(data, limit);
  const text = data.toString("utf8");
  const trimmed = text.trim();
  // Legacy unwrap: a decoded text that is itself base64 is decoded once more (reference §1.2 step 6).
  return looksBase64(trimmed) ? Buffer.from(trimmed, "base64").toString("utf8") : text;
}

/**
 * Own `__proto__` keys would become prototypes once spread into stored objects: refused (our choice). A JSON text
 * can only spell that key as `__proto__` or with a `\u` escape, so a text with neither needs no walk.
 */
function hasProtoKey(text: string, value: unknown): boolean {
  return (text.includes("__proto__") || text.includes("\\u")) && hasOwnProtoKeyWithin(value);
}

function hasOwnProtoKeyWithin(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length) {
    const item = pending.pop();
    if (item === null || typeof item !== "object") continue;
    if (!Array.isArray(item) && Object.hasOwn(item, "__proto__")) return true;
    for (const child of Object.values(item)) pending.push(child);
  }
  return false;
}

/** The request's JSON value, or a 400/413 (reference §1.2, §1.6). */
export function decodeCapture(raw: RawCapture, limit: number): unknown {
  if (raw.body.length > limit) throw captureFail.tooLarge(limit);
  const text = decodedText(raw, limit);
  if (Buffer.byteLength(text) > limit) throw captureFail.tooLarge(limit);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw captureFail.parsing((e as Error).message);
  }
  if (nestsDeeperThan(value)) throw captureFail.parsing(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is not accepted.`);
  if (hasProtoKey(text, value)) throw captureFail.parsing('the key "__proto__" is not accepted.');
  return value;
}
