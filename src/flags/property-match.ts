/**
 * One property filter against one set of properties, as the flags service's `match_property` decides it with full
 * properties (reference: flags service `properties/property_matching.rs`). Where the service returns an error
 * (a non-numeric value for gt, an unparsable semver filter), the condition simply does not match, as it does there.
 */
import { compileRe2 } from "../core/regex.ts";
import { parseDateString, parsePropertyDate } from "./dates.ts";
import { caretRange, compareVersions, inRange, tildeRange, toVersion, wildcardRange, type VersionRange } from "./semver.ts";
import type { PropertyFilter } from "./types.ts";
import { asciiLower, toNumber, toStringRepresentation } from "./values.ts";

type Properties = Record<string, unknown>;
type ValueMatcher = (actual: unknown, expected: unknown, now: Date) => boolean;

const has = (properties: Properties, key: string): boolean => Object.prototype.hasOwnProperty.call(properties, key);

/** Whether `filter` holds for `properties` (person or group); `now` anchors relative dates. */
export function matchProperty(filter: PropertyFilter, properties: Properties, now: Date): boolean {
  const operator = filter.operator ?? "exact";
  const present = has(properties, filter.key);
  if (operator === "is_set") return present;
  if (operator === "is_not_set") return !present;
  // A null or absent filter value matches nothing (serde reads a JSON null as "no value").
  if (filter.value === undefined || filter.value === null) return false;
  const rule = RULES[operator];
  if (!rule) return false;
  if (!present) return rule.whenMissing;
  return rule.match(properties[filter.key], filter.value, now);
}

interface Rule {
  /** The answer when the person does not have the property at all. */
  whenMissing: boolean;
  match: ValueMatcher;
}

const positive = (match: ValueMatcher): Rule => ({ whenMissing: false, match });
const negative = (match: ValueMatcher): Rule => ({ whenMissing: true, match: (a, e, n) => !match(a, e, n) });

const RULES: Record<string, Rule> = {
  exact: positive((a, e) => exactMatch(e, a)),
  is_not: negative((a, e) => exactMatch(e, a)),
  icontains: positive((a, e) => lowered(a).includes(lowered(e))),
  not_icontains: negative((a, e) => lowered(a).includes(lowered(e))),
  starts_with: positive((a, e) => lowered(a).startsWith(lowered(e))),
  not_starts_with: negative((a, e) => lowered(a).startsWith(lowered(e))),
  ends_with: positive((a, e) => lowered(a).endsWith(lowered(e))),
  not_ends_with: negative((a, e) => lowered(a).endsWith(lowered(e))),
  icontains_multi: positive(containsAny),
  not_icontains_multi: negative(containsAny),
  regex: positive((a, e) => regexMatch(e, a) === true),
  // An invalid pattern matches neither regex nor not_regex.
  not_regex: { whenMissing: true, match: (a, e) => regexMatch(e, a) === false },
  gt: positive((a, e) => compareNumbers(a, e, (x, y) => x > y)),
  gte: positive((a, e) => compareNumbers(a, e, (x, y) => x >= y)),
  lt: positive((a, e) => compareNumbers(a, e, (x, y) => x < y)),
  lte: positive((a, e) => compareNumbers(a, e, (x, y) => x <= y)),
  between: positive((a, e) => inNumericRange(a, e) === true),
  not_between: { whenMissing: true, match: (a, e) => inNumericRange(a, e) === false },
  is_date_before: positive((a, e, now) => compareDates(a, e, now, (x, y) => x < y)),
  is_date_after: positive((a, e, now) => compareDates(a, e, now, (x, y) => x > y)),
  is_date_exact: positive((a, e, now) => compareDates(a, e, now, (x, y) => x === y)),
  semver_eq: positive((a, e) => compareSemver(a, e, (c) => c === 0)),
  semver_neq: positive((a, e) => compareSemver(a, e, (c) => c !== 0)),
  semver_gt: positive((a, e) => compareSemver(a, e, (c) => c > 0)),
  semver_gte: positive((a, e) => compareSemver(a, e, (c) => c >= 0)),
  semver_lt: positive((a, e) => compareSemver(a, e, (c) => c < 0)),
  semver_lte: positive((a, e) => compareSemver(a, e, (c) => c <= 0)),
  semver_tilde: positive((a, e) => semverInRange(a, tildeRange(toStringRepresentation(e)))),
  semver_caret: positive((a, e) => semverInRange(a, caretRange(toStringRepresentation(e)))),
  semver_wildcard: positive((a, e) => semverInRange(a, wildcardRange(toStringRepresentation(e)))),
};

const lowered = (value: unknown): string => asciiLower(toStringRepresentation(value));

/** true/false-like filters compare truthiness ("True" = true); lists match any member; the rest compare case-insensitively as strings. */
function exactMatch(expected: unknown, actual: unknown): boolean {
  if (isBooleanLike(expected)) return isTruthy(actual) === isTruthy(expected);
  const target = toStringRepresentation(actual).toLowerCase();
  if (Array.isArray(expected)) return expected.some((item) => toStringRepresentation(item).toLowerCase() === target);
  return toStringRepresentation(expected).toLowerCase() === target;
}

function isBooleanLike(value: unknown): boolean {
  if (typeof value === "boolean") return true;
  if (typeof value === "string") return ["true", "false"].includes(value.toLowerCase());
  return Array.isArray(value) && value.every(isBooleanLike);
}

function isTruthy(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") return value.toLowerCase() === "true";
  return Array.isArray(value) && value.every(isTruthy);
}

function containsAny(actual: unknown, expected: unknown): boolean {
  const haystack = lowered(actual);
  const needles = Array.isArray(expected) ? expected : [expected];
  return needles.some((needle) => haystack.includes(lowered(needle)));
}

/**
 * The flag's pattern on RE2, or null when it does not compile there. The service runs fancy_regex with a backtrack
 * limit (10,000 steps) and answers an invalid pattern with no match; RE2 never backtracks, so no limit is needed.
 * Its syntax is the service's for everything but backreferences and lookaround (RE2 refuses them: such a pattern
 * matches nothing here, see openapi/differences.yaml). Case-sensitive unless the pattern says `(?i)`, as there.
 */
function compile(pattern: string): RegExp | null {
  try {
    return compileRe2(pattern);
  } catch {
    return null;
  }
}

/** undefined when the pattern does not compile. */
function regexMatch(pattern: unknown, actual: unknown): boolean | undefined {
  const regex = compile(toStringRepresentation(pattern));
  return regex ? regex.test(toStringRepresentation(actual)) : undefined;
}

/** Both sides must read as numbers, else no match (the service reports a validation error). */
function compareNumbers(actual: unknown, expected: unknown, holds: (x: number, y: number) => boolean): boolean {
  const x = toNumber(actual);
  const y = toNumber(expected);
  return x !== undefined && y !== undefined && holds(x, y);
}

/** [min, max] inclusive; undefined for a malformed range or a non-numeric value (neither between nor not_between then). */
function inNumericRange(actual: unknown, bounds: unknown): boolean | undefined {
  if (!Array.isArray(bounds) || bounds.length !== 2) return undefined;
  const low = toNumber(bounds[0]);
  const high = toNumber(bounds[1]);
  if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high) || low > high) return undefined;
  const value = toNumber(actual);
  if (value === undefined || Number.isNaN(value)) return undefined;
  return value >= low && value <= high;
}

function compareDates(actual: unknown, expected: unknown, now: Date, holds: (x: number, y: number) => boolean): boolean {
  const value = parsePropertyDate(actual, now);
  if (!value || typeof expected !== "string") return false;
  const filter = parseDateString(expected, now);
  return filter !== undefined && holds(value.getTime(), filter.getTime());
}

function compareSemver(actual: unknown, expected: unknown, holds: (comparison: number) => boolean): boolean {
  const value = toVersion(toStringRepresentation(actual));
  const filter = toVersion(toStringRepresentation(expected));
  return value !== undefined && filter !== undefined && holds(compareVersions(value, filter));
}

function semverInRange(actual: unknown, range: VersionRange | undefined): boolean {
  const value = toVersion(toStringRepresentation(actual));
  return value !== undefined && range !== undefined && inRange(value, range);
}
