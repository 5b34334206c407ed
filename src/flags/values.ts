/**
 * How the flags service turns JSON values into strings and numbers before comparing them
 * (reference: flags service `property_matching.rs`, `to_string_representation`, `to_f64_representation`).
 */

/** A string as itself; anything else as compact JSON with sorted object keys (serde_json's default map). */
export function toStringRepresentation(value: unknown): string {
  return typeof value === "string" ? value : canonicalJson(value);
}

function canonicalJson(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Rust's `str::parse::<f64>` accepts exactly these: no spaces, no hex, but inf/infinity/nan in any case. */
const RUST_FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** A JSON number as itself, otherwise its string representation parsed as Rust parses an f64; undefined when it does not parse. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  const text = toStringRepresentation(value);
  if (!RUST_FLOAT.test(text)) return undefined;
  const lower = text.toLowerCase().replace(/^\+/, "");
  if (/^-?(inf|infinity)$/.test(lower)) return lower.startsWith("-") ? -Infinity : Infinity;
  if (/nan$/.test(lower)) return NaN;
  return Number(text);
}

/** ASCII-only lowercasing, as the service's contains/starts/ends operators use (`to_ascii_lowercase`). */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}
