import { maskKey } from "../util/ids.ts";
import { nestsDeeperThan, tooDeepMessage } from "../util/json-depth.ts";
import { estimatedJsonBytes } from "../util/json-size.ts";

/**
 * One answered request, as the control API reports it: enough for a test to verify what an app sent.
 * Never headers (the personal API key travels in `Authorization`); a key found in the query or the body is
 * masked too.
 */
export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  /** The raw query string, without `?` ("" when none). */
  query: string;
  /** The routed operation, or null (unknown path, wrong method, the control API's own pages). */
  operation_id: string | null;
  /**
   * The JSON body as parsed, or null when none was read; over BODY_CAP bytes, the first BODY_CAP bytes of its JSON
   * text. A body read as bytes (the capture endpoints) is its text, parsed when it is JSON within BODY_CAP bytes.
   */
  body: unknown;
  body_truncated: boolean;
  status: number;
  /** passed: the request met the contract; failed: rejected by validation (400/413/415); not_checked: refused before validation (401/403). */
  validation: "passed" | "failed" | "not_checked";
  /** For a 4xx, the error's `code` and `attr`. */
  error: { code: string; attr: string | null } | null;
  duration_ms: number;
  /** How the answer departs from what the request's words suggest (an inverted range answered empty); absent when nothing. */
  notes?: string[];
}

/** Largest body kept per entry: a bounded log must stay bounded in bytes too. */
export const BODY_CAP = 16 * 1024;
/** A decoded capture payload may be larger: a posthog-js batch of a few events is already past BODY_CAP, and its events are matched. */
export const CAPTURE_BODY_CAP = 256 * 1024;

/** Personal API keys and project secret keys, wherever they appear. */
const SECRET_KEY = /ph[xs]_[A-Za-z0-9_]+/g;
/** A sharing token opens an insight without a key: the query parameter that carries it. */
const SHARING_TOKEN = /(sharing_access_token=)([^&#\s"]+)/g;

/** Secrets inside a logged text, masked as everywhere else (`phx_…abcd`). */
export const maskKeys = (text: string): string => text.replace(SECRET_KEY, (key) => maskKey(key)).replace(SHARING_TOKEN, (_all, name: string, token: string) => name + maskKey(token));

/** The first `cap` bytes of UTF-8 text, cut before a character that would not fit whole. */
function utf8Prefix(bytes: Buffer, cap: number): string {
  let end = Math.min(cap, bytes.length);
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/** A body as the log keeps it, and what it weighs against LOG_BODY_BUDGET: the length of its JSON text. */
export interface LoggedBody {
  body: unknown;
  body_truncated: boolean;
  weight: number;
}

const NO_BODY: LoggedBody = { body: null, body_truncated: false, weight: 0 };

/** A text kept as the body, weighed by its length. */
const keptText = (text: string, truncated: boolean): LoggedBody => ({ body: text, body_truncated: truncated, weight: text.length });

/** The body as it is logged: masked, and cut at BODY_CAP bytes of JSON text (then a string, flagged). */
export function loggedBody(body: unknown, cap = BODY_CAP): LoggedBody {
  if (body === undefined || body === null) return NO_BODY;
  if (Buffer.isBuffer(body)) return loggedBytes(body);
  // A body nested too deep to serialise was refused with a 400; the log keeps a note, never a stack overflow.
  if (nestsDeeperThan(body)) return keptText(tooDeepMessage, true);
  const text = JSON.stringify(body);
  const masked = maskKeys(text);
  if (Buffer.byteLength(masked) <= cap) return { body: masked === text ? body : (JSON.parse(masked) as unknown), body_truncated: false, weight: masked.length };
  return keptText(utf8Prefix(Buffer.from(masked), BODY_CAP), true);
}

/**
 * A body read as bytes (capture decodes its own: gzip, base64, forms): its text, or the JSON value of that text.
 * Only the first BODY_CAP bytes are read, so a 20 MB batch costs the log what a small one does (walking and
 * serialising the whole Buffer took ~40 % of capture's time).
 */
function loggedBytes(bytes: Buffer): LoggedBody {
  if (bytes.length === 0) return NO_BODY;
  if (bytes.length > BODY_CAP) return keptText(maskKeys(utf8Prefix(bytes, BODY_CAP)), true);
  const text = bytes.toString("utf8");
  try {
    return loggedBody(JSON.parse(text));
  } catch {
    return keptText(maskKeys(text), false);
  }
}

/** For a 4xx answered with the API's error shape, what a test asserts on. */
export function loggedError(status: number, body: unknown): RequestLogEntry["error"] {
  if (status < 400 || status >= 500 || typeof body !== "object" || body === null) return null;
  const { code, attr } = body as { code?: unknown; attr?: unknown };
  return typeof code === "string" ? { code, attr: typeof attr === "string" ? attr : null } : null;
}

/**
 * The bodies the log keeps, together, in bytes of JSON text. Past it the oldest entries keep their line but lose
 * their body (null, flagged `body_truncated`): a thousand capture batches of 256 KiB each must not pin a quarter
 * of a gigabyte, and a test asserts on the requests it has just made.
 */
export const LOG_BODY_BUDGET = 4 * 2 ** 20;

/** What an entry's body costs the budget when no weight came with it: its JSON text's length (a kept text as it is, a value as it would be written). */
const bodyWeight = (body: unknown): number => (body === null ? 0 : typeof body === "string" ? body.length : estimatedJsonBytes(body));

/** A bounded log: the oldest entries fall off, and their bodies sooner (LOG_BODY_BUDGET), so a long soak never grows memory. */
export class RequestLog {
  #entries: RequestLogEntry[] = [];
  /** The body bytes each entry still holds, by the same index. */
  #weights: number[] = [];
  #next = 0;
  #total = 0;
  #bodyBytes = 0;
  /** How many of the oldest entries have no body left: the next body to drop is the one after them. */
  #bare = 0;

  constructor(readonly capacity: number) {}

  /** `weight`: the body's, when the caller has weighed it already (loggedBody does, from the text it wrote). */
  push(entry: RequestLogEntry, weight = bodyWeight(entry.body)): void {
    if (this.capacity === 0) return;
    this.#total++;
    if (this.#entries.length < this.capacity) {
      this.#entries.push(entry);
      this.#weights.push(weight);
    } else {
      this.#bodyBytes -= this.#weights[this.#next]!;
      this.#entries[this.#next] = entry;
      this.#weights[this.#next] = weight;
      this.#next = (this.#next + 1) % this.capacity;
      this.#bare = Math.max(0, this.#bare - 1);
    }
    this.#bodyBytes += weight;
    this.#dropOldestBodies();
  }

  /** Newest first. */
  list(limit = this.capacity): RequestLogEntry[] {
    const ordered = [...this.#entries.slice(this.#next), ...this.#entries.slice(0, this.#next)].reverse();
    return ordered.slice(0, limit);
  }

  /** Requests seen since the last clear, including those that fell off. */
  get total(): number {
    return this.#total;
  }

  /** The body bytes the log holds (at most LOG_BODY_BUDGET, or one entry's body when that alone is larger). */
  get bodyBytes(): number {
    return this.#bodyBytes;
  }

  clear(): void {
    this.#entries = [];
    this.#weights = [];
    this.#next = 0;
    this.#total = 0;
    this.#bodyBytes = 0;
    this.#bare = 0;
  }

  /** Oldest first, never the newest entry: the request a test has just made keeps its body. */
  #dropOldestBodies(): void {
    while (this.#bodyBytes > LOG_BODY_BUDGET && this.#bare < this.#entries.length - 1) {
      const at = (this.#next + this.#bare) % this.#entries.length;
      const entry = this.#entries[at]!;
      this.#bodyBytes -= this.#weights[at]!;
      this.#weights[at] = 0;
      if (entry.body !== null) this.#entries[at] = { ...entry, body: null, body_truncated: true };
      this.#bare++;
    }
  }
}

export const validationOutcome = (status: number): RequestLogEntry["validation"] =>
  status === 400 || status === 413 || status === 415 ? "failed" : status === 401 || status === 403 ? "not_checked" : "passed";


interface AnsweredRequest {
  method: string;
  originalUrl: string;
  body: unknown;
  /** A capture payload as decoded: logged instead of the body's bytes. */
  decoded?: unknown;
}

/**
 * The events of a logged capture body (a batch's `batch`, an array's items), for patterns: a batch matches a
 * body condition when one of its events does. Empty for any other body.
 */
export function bodyEvents(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const batch = (body as { batch?: unknown } | null)?.batch;
  return Array.isArray(batch) ? batch : [];
}

/** The log entry of an answered request (`errorBody`: what a 4xx answered, for its code and attr), and its body's weight. */
export function requestLogEntry(req: AnsweredRequest, status: number, errorBody: unknown, operationId: string | null, ms: number, notes: readonly string[] = []): { entry: RequestLogEntry; weight: number } {
  const at = req.originalUrl.indexOf("?");
  const { weight, ...body } = req.decoded === undefined ? loggedBody(req.body) : loggedBody(req.decoded, CAPTURE_BODY_CAP);
  const entry: RequestLogEntry = {
    at: new Date().toISOString(),
    method: req.method,
    path: at === -1 ? req.originalUrl : req.originalUrl.slice(0, at),
    query: at === -1 ? "" : maskKeys(req.originalUrl.slice(at + 1)),
    operation_id: operationId,
    ...body,
    status,
    validation: validationOutcome(status),
    error: loggedError(status, errorBody),
    duration_ms: Math.round(ms * 100) / 100,
    ...(notes.length ? { notes: [...notes] } : {}),
  };
  return { entry, weight };
}
