import { nestsDeeperThan, tooDeepMessage } from "../../util/json-depth.ts";
import { reject } from "../../core/analysis-errors.ts";

/**
 * Typed reads over the loose filter JSON. The OpenAPI layer has checked the types already, but GET forms
 * may still carry JSON-encoded lists and "true"/"false" strings (reference: analytics §1.3).
 */
export type Loose = Record<string, unknown>;

export const isObject = (value: unknown): value is Loose =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A JSON-encoded list or object given as a string is decoded; anything else is returned as is. */
export function decodeJsonish(value: unknown, attr: string | null = null): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  if (!trimmed.startsWith("[") && !trimmed.startsWith("{")) return value;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (nestsDeeperThan(parsed)) throw reject.invalid(attr, tooDeepMessage);
    return parsed;
  } catch (err) {
    if (err instanceof SyntaxError) return value;
    throw err;
  }
}

export function readString(obj: Loose, key: string): string | undefined {
  const value = obj[key];
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  return undefined;
}

export function readNumber(obj: Loose, key: string): number | undefined {
  const value = obj[key];
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

export function readBool(obj: Loose, key: string): boolean {
  const value = obj[key];
  return value === true || value === "true" || value === 1;
}

export function readList(obj: Loose, key: string): unknown[] {
  const value = decodeJsonish(obj[key], key);
  return Array.isArray(value) ? value : [];
}

export function readObjects(obj: Loose, key: string): Loose[] {
  return readList(obj, key).filter(isObject);
}
