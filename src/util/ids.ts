import { randomBytes } from "node:crypto";
import { v5 as uuidv5 } from "uuid";

/** Namespace of the real service's deterministic person uuids (reference: ingestion-persons-events §3.1). */
const PERSON_NAMESPACE = "932979b4-65c3-4424-8467-0b66ec27bc22";

/**
 * The UTF-8 the name is hashed as: a lone surrogate (JSON can carry `"\ud800"`) has none, and uuid's v5
 * throws a URIError on it; it becomes U+FFFD, as any UTF-8 encoder writes it.
 */
const wellFormed = (name: string): string => name.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** The person uuid the real service derives from the distinct id that created the person. */
export const personUuid = (projectId: string, distinctId: string): string => uuidv5(wellFormed(`${projectId}:${distinctId}`), PERSON_NAMESPACE);

/** A stable uuid for records that arrive without one (fixture events, users). */
export const stableUuid = (name: string): string => uuidv5(wellFormed(name), PERSON_NAMESPACE);

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** 8 random alphanumerics, as the real service's insight short ids. */
export function randomShortId(): string {
  return Array.from(randomBytes(8), (b) => BASE62[b % 62]).join("");
}

/** A short id derived from a seed string, for fixture insights that come without one. */
export function stableShortId(seed: string): string {
  const hex = stableUuid(seed).replace(/-/g, "");
  return Array.from({ length: 8 }, (_, i) => BASE62[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 62]).join("");
}

/**
 * The project API token a fixture project gets when it names none: `phc_` and 43 base62 characters (the real
 * service's length) derived from the project id, so the same dataset always prints the same token.
 */
export function derivedProjectToken(projectId: string): string {
  const hex = [0, 1, 2].map((i) => stableUuid(`project-token:${i}:${projectId}`).replace(/-/g, "")).join("");
  return `phc_${Array.from({ length: 43 }, (_, i) => BASE62[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 62]).join("")}`;
}

/**
 * A project's secret key (`phs_…`), which authenticates posthog-node's local evaluation polling as the real
 * service's project secret API key does; derived from the id, so every project has one without storing it.
 */
export function derivedProjectSecretKey(projectId: string): string {
  const hex = [0, 1, 2].map((i) => stableUuid(`project-secret:${i}:${projectId}`).replace(/-/g, "")).join("");
  return `phs_${Array.from({ length: 43 }, (_, i) => BASE62[parseInt(hex.slice(i * 2, i * 2 + 2), 16) % 62]).join("")}`;
}

/** `phx_…abcd`: how a key may appear in logs and messages. */
export const maskKey = (key: string): string => `${key.slice(0, 4)}…${key.slice(-4)}`;

/** Lowercase UUIDs and old posthog-js ids look anonymous (reference: ingestion-persons-events §4.3). */
export const looksAnonymous = (distinctId: string): boolean => /^([a-z0-9]+-){4}[a-z0-9]+$/.test(distinctId);

/**
 * Project ids are integers on the wire, as the real service's are. The store keeps the fixture's string: an
 * integer string is that integer; any other string gets a stable integer above the fixtures' usual range.
 */
export function projectNumber(project: { id: string }): number {
  if (/^[1-9]\d{0,14}$/.test(project.id)) return Number(project.id);
  let h = 0x811c9dc5;
  for (let i = 0; i < project.id.length; i++) h = Math.imul(h ^ project.id.charCodeAt(i), 0x01000193) >>> 0;
  return 1_000_000_000 + (h % 1_000_000_000);
}
