/**
 * From a decoded capture payload to events ready for person processing: the payload's shape and token
 * (reference: ingestion-persons-events §1.2 step 8, §1.4), each event's required fields (§1.3, §1.5), its
 * corrected timestamp (§1.7) and ingestion's normalisation (§2). Pure: the clock and ids come in as arguments.
 */
import stringify from "safe-stable-stringify";
import { isPrintableInstant } from "../core/clock.ts";
import type { Properties } from "../store/schema.ts";
import { captureFail } from "./errors.ts";
import type { PropertyOps } from "./persons-merge.ts";

type Raw = Record<string, unknown>;

export interface CaptureBatch {
  events: Raw[];
  /** Undefined when no token was sent (401). */
  token: string | undefined;
  sentAt: string | undefined;
}

const isObject = (v: unknown): v is Raw => v !== null && typeof v === "object" && !Array.isArray(v);
const asToken = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const eventToken = (e: Raw) => asToken(e.token) ?? asToken(e.api_key) ?? asToken(e.$token) ?? (isObject(e.properties) ? asToken(e.properties.token) : undefined);

/** Array, batch object or single event, in that order; the token by the shape's rule (reference §1.4). */
export function toBatch(value: unknown): CaptureBatch {
  if (Array.isArray(value)) {
    if (value.length === 0) throw captureFail.emptyBatch();
    if (!value.every(isObject)) throw captureFail.notAnEvent();
    const tokens = new Set(value.map(eventToken).filter((t) => t !== undefined));
    if (tokens.size > 1) throw captureFail.inconsistentTokens();
    return { events: value, token: [...tokens][0], sentAt: undefined };
  }
  if (!isObject(value)) throw captureFail.notAnEvent();
  if (Object.hasOwn(value, "batch")) {
    if (!Array.isArray(value.batch) || value.batch.length === 0) throw captureFail.emptyBatch();
    if (!value.batch.every(isObject)) throw captureFail.notAnEvent();
    const sentAt = typeof value.sent_at === "string" ? value.sent_at : undefined;
    return { events: value.batch, token: asToken(value.api_key) ?? asToken(value.token), sentAt };
  }
  return { events: [value], token: eventToken(value), sentAt: typeof value.sent_at === "string" ? value.sent_at : undefined };
}

/** Non-strings become compact JSON with sorted keys; NUL becomes U+FFFD; at most 200 characters (reference §1.5). */
export function sanitiseDistinctId(value: unknown): string | null {
  if (value === undefined || value === null || value === "") return null;
  const text = typeof value === "string" ? value : (stringify(value) ?? String(value));
  const clean = text.includes("\u0000") ? text.replace(/\u0000/g, "\uFFFD") : text;
  // 200 UTF-16 units or fewer are at most 200 code points: only a longer id is split.
  return clean.length <= 200 ? clean : [...clean].slice(0, 200).join("");
}

const ISO_ZONELESS = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/;

/** Years 0 to 9999 (UTC), as instants: a parsed time outside is refused. */
const YEAR_0 = Date.parse("0000-01-01T00:00:00Z");
const YEAR_10000 = Date.parse("+010000-01-01T00:00:00Z");

/** Lenient time parsing (reference §1.7): RFC 3339, date only, no zone = UTC, `+03` zones, epoch numbers. */
export function parseTime(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value !== "string" || value.trim() === "") return null;
  let text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  if (ISO_ZONELESS.test(text)) text = `${text.replace(" ", "T")}${text.length === 10 ? "T00:00:00" : ""}Z`;
  text = text.replace(/([+-]\d{2})$/, "$1:00");
  const ms = Date.parse(text);
  return ms >= YEAR_0 && ms < YEAR_10000 ? ms : null;
}

/** `sent_at` is the same for every event of a batch: parsed once per batch, not per event. */
let lastSentAt: { text: unknown; ms: number | null } = { text: undefined, ms: null };
function sentAtOf(text: string | undefined): number | null {
  if (lastSentAt.text !== text) lastSentAt = { text, ms: parseTime(text) };
  return lastSentAt.ms;
}

const FUTURE_LIMIT_MS = 23 * 3600_000;

/**
 * The stored timestamp (reference §1.7): the client clock is trusted only for `timestamp − sent_at`; `offset`
 * wins. A result outside years 0000–9999 is ignored for now, as ingestion does with an out-of-range year
 * (plugin-server `parseEventTimestamp`): `offset: 1e300` or a `sent_at` far from its timestamp.
 */
export function correctedTimestamp(e: { timestamp?: unknown; offset?: unknown; ignoreSentAt: boolean }, sentAt: number | null, now: number): number {
  const sent = e.ignoreSentAt ? null : sentAt;
  const ts = parseTime(e.timestamp);
  let result = now;
  if (typeof e.offset === "number" && Number.isFinite(e.offset)) result = now - e.offset;
  else if (ts !== null) result = sent !== null ? now + (ts - sent) : ts;
  return result - now > FUTURE_LIMIT_MS || !isPrintableInstant(result) ? now : result;
}

const LIFTED = [
  "$app_build", "$app_name", "$app_namespace", "$app_version", "$browser", "$browser_version", "$device_type", "$current_url", "$pathname",
  "$os", "$os_name", "$os_version", "$referring_domain", "$referrer", "$screen_height", "$screen_width", "$viewport_height", "$viewport_width",
  "$raw_user_agent", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_name", "utm_term", "gclid", "gad_source", "gclsrc", "dclid",
  "gbraid", "wbraid", "fbclid", "msclkid", "twclid", "li_fat_id", "mc_cid", "igshid", "ttclid", "rdt_cid", "irclid", "_kx", "epik", "qclid", "sccid",
];
/** Each lifted key's `$set_once` name: `$browser` → `$initial_browser`. */
const INITIAL_NAME = new Map(LIFTED.map((key) => [key, `$initial_${key.replace(/^\$/, "")}`]));
const SERVER_SKIPS = new Set(["$os", "$os_version"]);
const NOT_LIFTED_FOR = new Set(["$snapshot", "$performance_event"]);

/** Event properties copied into `$set` and `$set_once.$initial_*`; keys the client set itself win (reference §2.4). */
function liftPersonProperties(event: string, properties: Properties, set: Properties, setOnce: Properties): void {
  if (NOT_LIFTED_FOR.has(event)) return;
  const server = properties.$is_server === true;
  for (const [key, initial] of INITIAL_NAME) {
    if (!Object.hasOwn(properties, key) || (server && SERVER_SKIPS.has(key))) continue;
    if (!Object.hasOwn(set, key)) set[key] = properties[key];
    if (!Object.hasOwn(setOnce, initial)) setOnce[initial] = properties[key];
  }
}


const unsetKeys = (v: unknown): string[] => (Array.isArray(v) ? v.filter((k): k is string => typeof k === "string") : isObject(v) ? Object.keys(v) : []);

export const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const dashed = (id: string) => id.toLowerCase().replace(/^(.{8})-?(.{4})-?(.{4})-?(.{4})-?(.{12})$/, "$1-$2-$3-$4-$5");

/** Events dropped when person processing is off (reference §2.2). */
const PERSON_EVENTS = new Set(["$identify", "$create_alias", "$merge_dangerously", "$groupidentify"]);

export interface NormalisedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: number;
  properties: Properties;
  elements_chain: string;
  ops: PropertyOps;
  /** False for personless events (`$process_person_profile: false`). */
  processPerson: boolean;
}

export interface NormaliseContext {
  now: number;
  sentAt: string | undefined;
  /** `/engage/` turns events without a name into `$identify`. */
  engage: boolean;
  ip: string | undefined;
  newUuid: () => string;
}

/** Checks the required fields; throws the 400 of the first one missing or malformed (reference §1.3, §1.5). */
function validated(raw: Raw, engage: boolean) {
  const name = typeof raw.event === "string" && raw.event !== "" ? raw.event : engage ? "$identify" : null;
  if (name === null) throw captureFail.missingEventName();
  // Object.assign, not a spread: keys added to a spread's copy are added slowly in V8 (bench/NOTES.md).
  const properties: Properties = isObject(raw.properties) ? Object.assign({}, raw.properties) : {};
  const distinctId = sanitiseDistinctId(raw.distinct_id ?? raw.$distinct_id ?? properties.distinct_id);
  if (distinctId === null) throw captureFail.missingDistinctId();
  const uuid = raw.uuid === "" || raw.uuid === undefined || raw.uuid === null ? null : raw.uuid;
  if (uuid !== null && (typeof uuid !== "string" || !UUID_PATTERN.test(uuid))) throw captureFail.invalidUuid();
  if (properties.$cookieless_mode !== undefined && typeof properties.$cookieless_mode !== "boolean") throw captureFail.invalidCookieless();
  // 200 code points at most; a name of 200 UTF-16 units or fewer has no more than that. A 36-character uuid that
  // passed the pattern has its dashes already.
  const shortName = name.length <= 200 ? name : [...name].slice(0, 200).join("");
  return { name: shortName, properties, distinctId, uuid: uuid === null ? null : uuid.length === 36 ? uuid.toLowerCase() : dashed(uuid) };
}

/** One event as ingestion stores it; null when ingestion drops it (person events in personless mode). */
export function normaliseEvent(raw: Raw, ctx: NormaliseContext): NormalisedEvent | null {
  const { name, properties, distinctId, uuid } = validated(raw, ctx.engage);
  const set: Properties = { ...(isObject(properties.$set) ? properties.$set : {}), ...(isObject(raw.$set) ? raw.$set : {}) };
  const setOnce: Properties = { ...(isObject(properties.$set_once) ? properties.$set_once : {}), ...(isObject(raw.$set_once) ? raw.$set_once : {}) };
  const processPerson = properties.$process_person_profile !== false;
  if (!processPerson && PERSON_EVENTS.has(name)) return null;
  const sentAt = sentAtOf(ctx.sentAt);
  const timestamp = correctedTimestamp({ timestamp: raw.timestamp, offset: raw.offset, ignoreSentAt: properties.$ignore_sent_at === true }, sentAt, ctx.now);
  if (ctx.sentAt !== undefined) properties.$sent_at = ctx.sentAt;
  if (properties.$ip === undefined && ctx.ip !== undefined) properties.$ip = ctx.ip;
  let unset = unsetKeys(properties.$unset);
  if (processPerson) {
    delete properties.$process_person_profile;
    if (name !== "$groupidentify") liftPersonProperties(name, properties, set, setOnce);
  } else {
    unset = [];
    for (const key of ["$set", "$set_once", "$unset", "$group_0", "$group_1", "$group_2", "$group_3", "$group_4"]) delete properties[key];
  }
  const personOps = processPerson && name !== "$groupidentify";
  if (personOps && Object.keys(set).length) properties.$set = set;
  if (personOps && Object.keys(setOnce).length) properties.$set_once = setOnce;
  if (!personOps) delete properties.$set, delete properties.$set_once, delete properties.$unset;
  const elementsChain = typeof properties.$elements_chain === "string" ? properties.$elements_chain : "";
  delete properties.$elements_chain;
  delete properties.$elements;
  return {
    uuid: uuid ?? ctx.newUuid(),
    event: name,
    distinct_id: distinctId,
    timestamp,
    // A fresh object: the deletes above leave `properties` in V8's slow dictionary mode, and every analysis
    // reads these properties (a trend over captured events ran slower than over the same events loaded).
    properties: { ...properties },
    elements_chain: elementsChain,
    ops: personOps ? { set, setOnce, unset } : { set: {}, setOnce: {}, unset: [] },
    processPerson,
  };
}
