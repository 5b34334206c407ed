/**
 * Versions as the flags service compares them: its input is canonicalised (leading "v" dropped, missing minor/patch
 * padded, leading zeros stripped) and then parsed and ordered by the Rust `semver` crate
 * (reference: flags service `property_matching.rs` `to_semver_representation`, `canonicalize_version_string`).
 */

export interface Version {
  major: number;
  minor: number;
  patch: number;
  pre: string[];
  build: string[];
}

const stripLeadingZeros = (part: string): string => (/^\d+$/.test(part) ? part.replace(/^0+(?=\d)/, "") : part);

/** "v3.08" -> "3.8.0"; the pre-release / build suffix is kept as written. */
export function canonicalVersionText(text: string): string {
  const normalized = (text.startsWith("v") ? text.slice(1) : text).trim();
  const cut = normalized.search(/[-+]/);
  const [core, suffix] = cut < 0 ? [normalized, ""] : [normalized.slice(0, cut), normalized.slice(cut)];
  const parts = core.split(".").map(stripLeadingZeros);
  while (parts.length < 3) parts.push("0");
  return parts.join(".") + suffix;
}

const NUMERIC = /^(0|[1-9]\d*)$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

/** Strict semver 2 parse (what the `semver` crate accepts). */
export function parseStrictVersion(text: string): Version | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)(?:-([^+]*))?(?:\+(.*))?$/.exec(text);
  if (!match) return undefined;
  const core = [match[1]!, match[2]!, match[3]!];
  if (!core.every((part) => NUMERIC.test(part))) return undefined;
  const pre = match[4] === undefined ? [] : match[4].split(".");
  const build = match[5] === undefined ? [] : match[5].split(".");
  if (match[4] !== undefined && !pre.every((id) => IDENTIFIER.test(id) && (!/^\d+$/.test(id) || NUMERIC.test(id)))) return undefined;
  if (match[5] !== undefined && !build.every((id) => IDENTIFIER.test(id))) return undefined;
  const [major, minor, patch] = core.map(Number) as [number, number, number];
  if (![major, minor, patch].every(Number.isSafeInteger)) return undefined;
  return { major, minor, patch, pre, build };
}

/** A property or filter value as a version, or undefined when the service could not parse it. */
export function toVersion(value: string): Version | undefined {
  return parseStrictVersion(canonicalVersionText(value));
}

function compareIdentifiers(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum) {
      if (x.length !== y.length) return x.length - y.length;
    } else if (xNum !== yNum) return xNum ? -1 : 1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** The crate's total order: core, then pre-release (a release sorts after its pre-releases), then build metadata. */
export function compareVersions(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return Math.sign(core);
  if (a.pre.length === 0 || b.pre.length === 0) {
    if (a.pre.length !== b.pre.length) return a.pre.length === 0 ? 1 : -1;
  } else {
    const pre = compareIdentifiers(a.pre, b.pre);
    if (pre !== 0) return Math.sign(pre);
  }
  if (a.build.length === 0 || b.build.length === 0) return Math.sign(a.build.length - b.build.length);
  return Math.sign(compareIdentifiers(a.build, b.build));
}

/** A half-open range [lower, upper) plus the comparator version a pre-release must share its core with. */
export interface VersionRange {
  lower: Version;
  upper: Version;
  preReleaseAnchor: Version | undefined;
}

const release = (major: number, minor: number, patch: number): Version => ({ major, minor, patch, pre: [], build: [] });
/** The crate writes upper bounds as "<X.Y.Z-0", so no pre-release of the upper bound slips inside. */
const exclusiveUpper = (major: number, minor: number, patch: number): Version => ({ major, minor, patch, pre: ["0"], build: [] });

/** Whether a version satisfies a range; pre-releases only match when the requirement names one with the same core (the crate's rule). */
export function inRange(version: Version, range: VersionRange): boolean {
  if (version.pre.length > 0) {
    const anchor = range.preReleaseAnchor;
    const sameCore = anchor && anchor.major === version.major && anchor.minor === version.minor && anchor.patch === version.patch;
    if (!sameCore) return false;
  }
  return compareVersions(version, range.lower) >= 0 && compareVersions(version, range.upper) < 0;
}

/** "~1.2.3": at least 1.2.3, below 1.3.0. */
export function tildeRange(filter: string): VersionRange | undefined {
  const base = toVersion(filter);
  if (!base) return undefined;
  return { lower: { ...base, build: [] }, upper: exclusiveUpper(base.major, base.minor + 1, 0), preReleaseAnchor: anchorOf(base) };
}

/** "^1.2.3": below the next major (or minor for 0.y, patch for 0.0.z). */
export function caretRange(filter: string): VersionRange | undefined {
  const base = toVersion(filter);
  if (!base) return undefined;
  const upper =
    base.major > 0
      ? exclusiveUpper(base.major + 1, 0, 0)
      : base.minor > 0
        ? exclusiveUpper(0, base.minor + 1, 0)
        : exclusiveUpper(0, 0, base.patch + 1);
  return { lower: { ...base, build: [] }, upper, preReleaseAnchor: anchorOf(base) };
}

const anchorOf = (base: Version): Version | undefined => (base.pre.length > 0 ? base : undefined);

/**
 * "1.2.*", "1.*", "1.*.*", "*": the crate's wildcard requirement ("1.2.x"). Without a wildcard the crate reads a bare
 * partial version as a caret requirement ("1.2" = ^1.2). Anything else ("1.*.3") is no requirement.
 */
export function wildcardRange(filter: string): VersionRange | undefined {
  const normalized = (filter.startsWith("v") ? filter.slice(1) : filter).trim();
  const parts = normalized.split(".").map(stripLeadingZeros);
  if (parts.length > 3 || parts.some((p) => p === "")) return undefined;
  const firstWild = parts.findIndex((p) => p === "*" || p === "x" || p === "X");
  if (firstWild >= 0 && parts.slice(firstWild).some((p) => !(p === "*" || p === "x" || p === "X"))) return undefined;
  const fixed = firstWild < 0 ? parts : parts.slice(0, firstWild);
  if (!fixed.every((p) => NUMERIC.test(p))) return undefined;
  const [major, minor, patch] = fixed.map(Number);
  if (firstWild < 0) return partialCaret(major!, minor, patch);
  if (major === undefined) return { lower: release(0, 0, 0), upper: release(Number.MAX_SAFE_INTEGER, 0, 0), preReleaseAnchor: undefined };
  if (minor === undefined) return { lower: release(major, 0, 0), upper: exclusiveUpper(major + 1, 0, 0), preReleaseAnchor: undefined };
  return { lower: release(major, minor, 0), upper: exclusiveUpper(major, minor + 1, 0), preReleaseAnchor: undefined };
}

function partialCaret(major: number, minor: number | undefined, patch: number | undefined): VersionRange {
  const lower = release(major, minor ?? 0, patch ?? 0);
  const upper =
    major > 0 || minor === undefined
      ? exclusiveUpper(major + 1, 0, 0)
      : minor > 0 || patch === undefined
        ? exclusiveUpper(0, minor + 1, 0)
        : exclusiveUpper(0, 0, patch + 1);
  return { lower, upper, preReleaseAnchor: undefined };
}
