/** Operator semantics worked out from the flags service's `property_matching.rs` (its own test cases where it has them). */
import { describe, expect, it } from "vitest";
import { matchProperty, type PropertyFilter } from "../../../src/flags/index.ts";
import { NOW } from "./support.ts";

type Case = [name: string, filter: Omit<PropertyFilter, "key">, properties: Record<string, unknown>, want: boolean];
const f = (operator: string, value: unknown): Omit<PropertyFilter, "key"> => ({ operator, value });
const has = (value: unknown) => ({ key: value });

const cases: Case[] = [
  ["exact: case-insensitive string", f("exact", "VALUE"), has("value"), true],
  ["exact: default operator", { value: "value" }, has("value"), true],
  ["exact: list, any member", f("exact", ["US", "CA", "Uk"]), has("uk"), true],
  ["exact: list, no member", f("exact", ["US", "CA"]), has("de"), false],
  ["exact: empty list never matches a string", f("exact", []), has("us"), false],
  ["exact: \"True\" filter is truthiness", f("exact", "True"), has(true), true],
  ["exact: false filter matches \"false\"", f("exact", false), has("FALSE"), true],
  ["exact: number against numeric string", f("exact", 1), has("1"), true],
  ["exact: \"null\" matches a null value", f("exact", "null"), has(null), true],
  ["exact: missing property", f("exact", "value"), {}, false],
  ["exact: null filter value matches nothing", f("exact", null), has(null), false],
  ["is_not: other value", f("is_not", "value"), has("value2"), true],
  ["is_not: list member", f("is_not", ["value1", "value2"]), has("value2"), false],
  ["is_not: missing property matches", f("is_not", "value"), {}, true],
  ["is_set: null counts as set", f("is_set", "is_set"), has(null), true],
  ["is_set: missing", f("is_set", "is_set"), {}, false],
  ["is_not_set: missing", f("is_not_set", "is_not_set"), {}, true],
  ["is_not_set: present", f("is_not_set", "is_not_set"), has(""), false],
  ["icontains: ASCII case", f("icontains", "valUe"), has("343tfVALUE5"), true],
  ["icontains: number stringified", f("icontains", "3"), has(323), true],
  ["icontains: missing", f("icontains", "a"), {}, false],
  ["not_icontains: missing matches", f("not_icontains", "a"), {}, true],
  ["not_icontains: contained", f("not_icontains", "a"), has("bAnana"), false],
  ["icontains_multi: any needle", f("icontains_multi", ["xyz", "NAN"]), has("banana"), true],
  ["starts_with", f("starts_with", "Val"), has("value"), true],
  ["not_ends_with: missing matches", f("not_ends_with", "x"), {}, true],
  ["regex: matches", f("regex", "^user\\d+@"), has("user12@x.io"), true],
  ["regex: number stringified", f("regex", "^\\d{3}$"), has(123), true],
  ["regex: invalid pattern", f("regex", "(["), has("(["), false],
  ["regex: inline case-insensitive flag", f("regex", "(?i)^USER"), has("user1"), true],
  ["regex: Python-style named group", f("regex", "^(?P<name>[a-z]+)\\d$"), has("ann1"), true],
  ["regex: Unicode class", f("regex", "^\\p{L}+$"), has("Zoë"), true],
  ["not_regex: invalid pattern does not match either", f("not_regex", "(["), has("abc"), false],
  ["regex: case-sensitive by default", f("regex", "^USER"), has("user1"), false],
  ["regex: an inline flag later in the pattern", f("regex", "^u(?i:SER)\\d$"), has("user1"), true],
  // Linear time (RE2): 40 a's and a b would take a backtracking engine about 2^40 steps to refuse.
  ["regex: nested quantifier on a near-miss", f("regex", "^(a+)+$"), has(`${"a".repeat(40)}b`), false],
  ["regex: nested quantifier on a match", f("regex", "^(a+)+$"), has("a".repeat(40)), true],
  // RE2 has no backreferences: the pattern is one this server cannot run, so neither operator matches.
  ["regex: backreference (not RE2)", f("regex", "^(a)\\1$"), has("aa"), false],
  ["not_regex: backreference (not RE2)", f("not_regex", "^(a)\\1$"), has("ab"), false],
  ["not_regex: missing matches", f("not_regex", "a"), {}, true],
  ["gt: numbers", f("gt", 5), has(6), true],
  ["gt: numeric strings on both sides", f("gt", "10"), has("9"), false],
  ["gt: float string", f("gte", "1.5"), has(1.5), true],
  // posthog-node falls back to comparing strings here ("abc" > "5"); the service reports an error: no match.
  ["gt: non-numeric value", f("gt", 5), has("abc"), false],
  // posthog-node's parseFloat reads "12abc" as 12; Rust's f64 parser refuses it.
  ["gt: partly numeric value", f("gt", 5), has("12abc"), false],
  ["lt: non-numeric filter", f("lt", "abc"), has(1), false],
  ["lte: boolean value is not a number", f("lte", 5), has(true), false],
  ["lt: missing", f("lt", 5), {}, false],
  ["between: inclusive", f("between", [1, 5]), has(5), true],
  ["between: reversed bounds", f("between", [5, 1]), has(3), false],
  ["not_between: missing matches", f("not_between", [1, 5]), {}, true],
  ["not_between: non-numeric value", f("not_between", [1, 5]), has("x"), false],
  ["is_date_before: absolute", f("is_date_before", "2026-11-01"), has("2026-10-31T23:59:59Z"), true],
  ["is_date_before: offset honoured", f("is_date_before", "2026-11-01T00:00:00+01:00"), has("2026-10-31T23:30:00Z"), false],
  ["is_date_after: relative days", f("is_date_after", "-7d"), has("2026-11-14T12:00:00Z"), true],
  ["is_date_after: relative hours", f("is_date_after", "-1h"), has("2026-11-20T10:59:59Z"), false],
  ["is_date_after: naive date-time is UTC", f("is_date_after", "2026-11-19 23:00"), has("2026-11-20"), true],
  // Numbers are Unix seconds for the service (posthog-node reads them as milliseconds).
  ["is_date_after: Unix seconds", f("is_date_after", "2023-11-01"), has(1_700_000_000), true],
  ["is_date_after: numeric string is Unix seconds", f("is_date_after", "2023-11-01"), has("1700000000"), true],
  ["is_date_after: unparsable filter", f("is_date_after", "soon"), has("2026-11-20"), false],
  ["is_date_after: non-string filter", f("is_date_after", 5), has("2026-11-20"), false],
  ["is_date_exact", f("is_date_exact", "2026-11-20"), has("2026-11-20T00:00:00Z"), true],
  ["semver_eq: padded and v-prefixed", f("semver_eq", "1.2"), has("v1.2.0"), true],
  ["semver_eq: leading zeros stripped", f("semver_eq", "3.8.0"), has("3.08"), true],
  ["semver_lt: pre-release before release", f("semver_lt", "1.2.3"), has("1.2.3-alpha"), true],
  ["semver_eq: build metadata differs", f("semver_eq", "1.2.3+a"), has("1.2.3+b"), false],
  ["semver_gt: unparsable value", f("semver_gt", "1.0.0"), has("banana"), false],
  ["semver_tilde", f("semver_tilde", "1.2.3"), has("1.2.9"), true],
  ["semver_tilde: next minor", f("semver_tilde", "1.2.3"), has("1.3.0"), false],
  ["semver_tilde: pre-release excluded", f("semver_tilde", "1.2.3"), has("1.2.5-beta"), false],
  ["semver_caret: 0.x", f("semver_caret", "0.4.1"), has("0.4.9"), true],
  ["semver_caret: 0.x next minor", f("semver_caret", "0.4.1"), has("0.5.0"), false],
  ["semver_wildcard", f("semver_wildcard", "1.2.*"), has("1.2.7"), true],
  ["semver_wildcard: major", f("semver_wildcard", "1.*.*"), has("1.9.0"), true],
  ["semver_wildcard: invalid pattern", f("semver_wildcard", "1.*.3"), has("1.5.3"), false],
  ["unknown operator", f("looks_like", "a"), has("a"), false],
];

describe("matchProperty", () => {
  it.each(cases)("%s", (_name, filter, properties, want) => {
    expect(matchProperty({ key: "key", ...filter } as PropertyFilter, properties, NOW)).toBe(want);
  });
});
