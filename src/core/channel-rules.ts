import { MEDIUM_DEFINITIONS, SOURCE_DEFINITIONS, type ChannelDefinition } from "./channel-definitions.ts";
import { compileRe2 } from "./regex.ts";

/**
 * The default channel rules of the real service (PostHog/posthog posthog/hogql/database/schema/channel_type.py,
 * `_initial_default_channel_rules_expr`; documented at posthog.com/docs/data/channel-type): a person's
 * `$virt_initial_channel_type` and a session's `$channel_type`, from the utm_* parameters, the referring domain,
 * gclid, fbclid and gad_source. Written once over an algebra (`ChannelOps`), so that the same rules are evaluated
 * here in-process (`JS_CHANNEL_OPS`) and printed as ClickHouse SQL for the engine (src/sql-engine/mirror/channel-sql.ts).
 * Project-defined custom channel rules (the customChannelTypeRules modifier) are not modelled.
 */

/** The inputs, already normalised: campaign, medium and source lower-cased, their "" and "null" read as NULL. */
export interface ChannelInputs<V, B> {
  campaign: V;
  medium: V;
  source: V;
  referringDomain: V;
  gadSource: V;
  hasGclid: B;
  hasFbclid: B;
}

export type DefinitionTable = "source" | "medium";

/** What the rules need of a value domain (V: a text or NULL; B: a condition where NULL counts as false). */
export interface ChannelOps<V, B> {
  text(literal: string | null): V;
  /** `match(value, pattern)`: RE2, unanchored; NULL never matches. */
  matches(value: V, pattern: string): B;
  startsWith(value: V, prefix: string): B;
  oneOf(value: V, list: readonly string[]): B;
  equals(value: V, literal: string): B;
  isNull(value: V): B;
  not(condition: B): B;
  and(...conditions: B[]): B;
  or(...conditions: B[]): B;
  /** The definition's column for the value (a source is also tried by its first significant subdomain); NULL when unknown. */
  lookup(value: V, table: DefinitionTable, column: keyof ChannelDefinition): V;
  coalesce(...values: Array<() => V>): V;
  /** `multiIf`: the first branch whose condition holds, else `otherwise`. */
  cases(branches: ReadonlyArray<readonly [() => B, () => V]>, otherwise: () => V): V;
}

const PAID_MEDIUMS = ["cpc", "cpm", "cpv", "cpa", "ppc", "retargeting"] as const;
const DIRECT_SOURCES = ["(direct)", "direct", "$direct"] as const;
const SHOPPING_CAMPAIGN = "^(.*(([^a-df-z]|^)shop|shopping).*)$";
const VIDEO_CAMPAIGN = "^(.*video.*)$";
const DIRECT = "$direct";

/** The channel type: cross-network first, then paid, then direct, then organic (the real service's order). */
export function channelRules<V, B>(i: ChannelInputs<V, B>, o: ChannelOps<V, B>): V {
  const paid = o.or(o.oneOf(i.medium, PAID_MEDIUMS), o.startsWith(i.medium, "paid"), i.hasGclid, o.not(o.isNull(i.gadSource)));
  // Red-herring utm tags on a direct visit stay direct; an fbclid does not (test_channel_type.py::test_fbclid_only).
  const direct = o.and(o.equals(i.referringDomain, DIRECT), o.isNull(i.medium), o.or(o.isNull(i.source), o.oneOf(i.source, DIRECT_SOURCES)), o.not(i.hasFbclid));
  return o.cases(
    [
      [() => o.matches(i.campaign, "cross-network"), () => o.text("Cross Network")],
      [() => paid, () => paidChannel(i, o)],
      [() => direct, () => o.text("Direct")],
    ],
    () => organicChannel(i, o),
  );
}

/** A paid visit: by source, a shopping campaign, medium, referring domain, then the click ids. */
function paidChannel<V, B>(i: ChannelInputs<V, B>, o: ChannelOps<V, B>): V {
  return o.coalesce(
    () => o.lookup(i.source, "source", "ifPaid"),
    () => o.cases([[() => o.matches(i.campaign, SHOPPING_CAMPAIGN), () => o.text("Paid Shopping")]], () => o.text(null)),
    () => o.lookup(i.medium, "medium", "ifPaid"),
    () => o.lookup(i.referringDomain, "source", "ifPaid"),
    () =>
      o.cases(
        [
          [() => o.equals(i.gadSource, "1"), () => o.text("Paid Search")],
          [() => o.matches(i.campaign, VIDEO_CAMPAIGN), () => o.text("Paid Video")],
          [() => i.hasFbclid, () => o.text("Paid Social")],
        ],
        () => o.text("Paid Unknown"),
      ),
  );
}

/** An unpaid visit: by source, a shopping campaign, medium, referring domain, then what is left to tell. */
function organicChannel<V, B>(i: ChannelInputs<V, B>, o: ChannelOps<V, B>): V {
  return o.coalesce(
    () => o.lookup(i.source, "source", "ifOrganic"),
    () => o.cases([[() => o.matches(i.campaign, SHOPPING_CAMPAIGN), () => o.text("Organic Shopping")]], () => o.text(null)),
    () => o.lookup(i.medium, "medium", "ifOrganic"),
    () => o.lookup(i.referringDomain, "source", "ifOrganic"),
    () =>
      o.cases(
        [
          [() => o.matches(i.campaign, VIDEO_CAMPAIGN), () => o.text("Organic Video")],
          [() => o.matches(i.medium, "push$"), () => o.text("Push")],
          [() => i.hasFbclid, () => o.text("Organic Social")],
          [() => o.equals(i.referringDomain, DIRECT), () => o.text("Direct")],
          [() => o.not(o.isNull(i.referringDomain)), () => o.text("Referral")],
        ],
        () => o.text("Unknown"),
      ),
  );
}

/**
 * Public suffixes of two labels that ClickHouse's `cutToFirstSignificantSubdomain` looks through (its list is the
 * public suffix list; these are the second-level forms country registries use): `www.google.co.uk` → `google.co.uk`.
 */
const SECOND_LEVEL_LABELS = new Set(["ac", "co", "com", "edu", "gob", "go", "gov", "gv", "ltd", "mil", "ne", "net", "nic", "nom", "or", "org", "plc", "sch"]);

/** ClickHouse `cutToFirstSignificantSubdomain` of a host (or URL): the registrable domain, `l.facebook.com` → `facebook.com`. */
export function cutToFirstSignificantSubdomain(value: string): string {
  const host = (/^(?:[a-z][a-z0-9+.-]*:)?\/\/(?:[^/?#@]*@)?([^/?#:]*)/i.exec(value)?.[1] ?? /^[^/?#:]*/.exec(value)![0]).replace(/\.$/, "");
  const labels = host.split(".");
  if (labels.length <= 2) return host;
  const [second, top] = labels.slice(-2) as [string, string];
  const keep = top.length === 2 && SECOND_LEVEL_LABELS.has(second) ? 3 : 2;
  return labels.slice(-keep).join(".");
}

const TABLES: Readonly<Record<DefinitionTable, ReadonlyMap<string, ChannelDefinition>>> = { source: SOURCE_DEFINITIONS, medium: MEDIUM_DEFINITIONS };

/** The definition of a value: its own row, else (sources only) its first significant subdomain's (`coalesce(x, '')` keys). */
function definitionOf(value: string | null, table: DefinitionTable): ChannelDefinition | undefined {
  const key = value ?? "";
  const own = TABLES[table].get(key);
  return own ?? (table === "source" ? SOURCE_DEFINITIONS.get(cutToFirstSignificantSubdomain(key)) : undefined);
}

const first = (values: Array<() => string | null>): string | null => {
  for (const value of values) {
    const v = value();
    if (v !== null) return v;
  }
  return null;
};

/** The rules evaluated on values: NULL is null, and a condition on NULL is false (as in a ClickHouse `multiIf`). */
export const JS_CHANNEL_OPS: ChannelOps<string | null, boolean> = {
  text: (literal) => literal,
  matches: (value, pattern) => value !== null && compileRe2(pattern).test(value),
  startsWith: (value, prefix) => value !== null && value.startsWith(prefix),
  oneOf: (value, list) => value !== null && list.includes(value),
  equals: (value, literal) => value === literal,
  isNull: (value) => value === null,
  not: (condition) => !condition,
  and: (...conditions) => conditions.every(Boolean),
  or: (...conditions) => conditions.some(Boolean),
  lookup: (value, table, column) => definitionOf(value, table)?.[column] ?? null,
  coalesce: (...values) => first(values),
  cases: (branches, otherwise) => (branches.find(([condition]) => condition())?.[1] ?? otherwise)(),
};

/** A property value as HogQL's `toString` reads it: strings as they are, other JSON as its text; missing is NULL. */
const textOf = (value: unknown): string | null => (value === undefined || value === null ? null : typeof value === "string" ? value : JSON.stringify(value));

/** `nullIf(nullIf(x, ''), 'null')`, the real service's wrap_with_null_if_empty. */
const nullIfBlank = (value: string | null): string | null => (value === "" || value === "null" ? null : value);

const lowered = (value: unknown): string | null => nullIfBlank(textOf(value))?.toLowerCase() ?? null;

/** The raw attribution of a person (its `$initial_*` properties) or a session (its entry values). */
export interface Attribution {
  campaign: unknown;
  medium: unknown;
  source: unknown;
  referringDomain: unknown;
  gclid: unknown;
  fbclid: unknown;
  gadSource: unknown;
}

/**
 * A person's `$virt_initial_channel_type` (channel_type.py `create_initial_channel_type`): the referring domain as
 * it is (an empty one is a referral), the click ids present unless empty or "null".
 */
export function initialChannelType(properties: Readonly<Record<string, unknown>>): string {
  return channelTypeOf(
    {
      campaign: properties.$initial_utm_campaign,
      medium: properties.$initial_utm_medium,
      source: properties.$initial_utm_source,
      referringDomain: properties.$initial_referring_domain,
      gclid: properties.$initial_gclid,
      fbclid: properties.$initial_fbclid,
      gadSource: properties.$initial_gad_source,
    },
    (id) => nullIfBlank(textOf(id)) !== null,
    textOf,
  );
}

/**
 * A session's `$channel_type` (sessions_v2.py): from its entry values, where an empty value is NULL already
 * (so an empty referring domain is unknown, not a referral) and a click id is present when not NULL.
 */
export function sessionChannelType(entry: Attribution): string {
  const entryText = (value: unknown) => (textOf(value) === "" ? null : textOf(value));
  return channelTypeOf(entry, (id) => entryText(id) !== null, entryText);
}

function channelTypeOf(raw: Attribution, present: (id: unknown) => boolean, domain: (value: unknown) => string | null): string {
  const inputs: ChannelInputs<string | null, boolean> = {
    campaign: lowered(raw.campaign),
    medium: lowered(raw.medium),
    source: lowered(raw.source),
    referringDomain: domain(raw.referringDomain),
    gadSource: nullIfBlank(textOf(raw.gadSource)),
    hasGclid: present(raw.gclid),
    hasFbclid: present(raw.fbclid),
  };
  // The last branch always answers, so the rules never give NULL.
  return channelRules(inputs, JS_CHANNEL_OPS) ?? "Unknown";
}
