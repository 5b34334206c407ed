/**
 * HogQL's function allow-list as data: the HogQL name, the ClickHouse function it prints as, and how many
 * arguments (and parameters, for parametric aggregates) it takes. A function not in here never reaches
 * ClickHouse. Facts from PostHog `posthog/hogql/functions/mapping.py` (HOGQL_CLICKHOUSE_FUNCTIONS,
 * HOGQL_AGGREGATIONS); adding a function is adding a row.
 */
import { editDistance } from "../../core/edit-distance.ts";

export interface FunctionMeta {
  clickhouse: string;
  minArgs: number;
  /** null: any number. */
  maxArgs: number | null;
  aggregate: boolean;
  minParams: number;
  maxParams: number | null;
  /** The project's time zone is appended as the last argument (HogQL's `tz_aware`). */
  tzAware: boolean;
  /** Arguments appended after the caller's (HogQL's `suffix_args`: `toFloat(x)` is `accurateCastOrNull(x, 'Float64')`). */
  suffix: string[];
}

type Row = [name: string, min: number, max: number | null, extra?: Partial<FunctionMeta>];

const meta = (name: string, min: number, max: number | null, extra: Partial<FunctionMeta> = {}): FunctionMeta => ({
  clickhouse: name,
  minArgs: min,
  maxArgs: max,
  aggregate: false,
  minParams: 0,
  maxParams: 0,
  tzAware: false,
  suffix: [],
  ...extra,
});

/** Several functions of one arity that keep their name in ClickHouse. */
const same = (names: string, min: number, max: number | null): Row[] => names.split(/\s+/).filter(Boolean).map((n) => [n, min, max]);

const scalarRows: Row[] = [
  ...same("plus minus multiply divide intDiv intDivOrZero modulo moduloOrZero positiveModulo gcd lcm max2 min2 pow power atan2 hypot roundDown least greatest", 2, 2),
  ...same("negate abs empty notEmpty length reverse", 1, 1),
  ...same("multiplyDecimal divideDecimal", 2, 3),
  // arrays
  ["array", 0, null],
  ["range", 1, 3],
  ...same("arrayConcat arrayEnumerateUniq arrayIntersect arrayZip arrayFilter arrayMap arrayFill arraySplit arrayReverseFill arrayReverseSplit arrayFirst arrayLast arrayFirstIndex arrayLastIndex", 2, null),
  ...same("arrayElement has hasAll hasAny hasSubstr indexOf countEqual arrayPushBack arrayPushFront arrayAUC arrayWithConstant arrayRotateLeft arrayRotateRight", 2, 2),
  ...same("arrayCount arraySort arrayUniq arrayExists arrayAll arrayCumSum arrayCumSumNonNegative", 1, null),
  ...same("arrayEnumerate arrayPopBack arrayPopFront arrayJoin arrayDifference arrayDistinct arrayEnumerateDense arrayReverse arrayFlatten arrayCompact arrayProduct", 1, 1),
  ...same("arrayResize arraySlice", 2, 3),
  ...same("arrayMin arrayMax arraySum arrayAvg", 1, 2),
  ["arrayFold", 3, null],
  ["arrayReverseSort", 1, null, { clickhouse: "arrayReverseSort" }],
  // comparison and logic
  ...same("equals notEquals less greater lessOrEquals greaterOrEquals like ilike notLike notILike in notIn match", 2, 2),
  ...same("and or xor", 2, null),
  ["not", 1, 1],
  // conversions
  ...same("hex unhex toBool toJSONString toTypeName cityHash64", 1, 1),
  ["toInt", 1, 1, { clickhouse: "accurateCastOrNull", suffix: ["'Int64'"] }],
  ["toFloat", 1, 1, { clickhouse: "accurateCastOrNull", suffix: ["'Float64'"] }],
  ["toUUID", 1, 1, { clickhouse: "accurateCastOrNull", suffix: ["'UUID'"] }],
  ["toDecimal", 2, 2, { clickhouse: "toDecimal64OrNull" }],
  // toDate, toDateTime, now, today, yesterday and concat are printed by calls.ts `printSpecial` (by argument kind, or
  // from the injected clock); their rows here hold the argument counts.
  ["toDate", 1, 1],
  ["to_date", 1, 1],
  ["toDateTime", 1, 1],
  ["toString", 1, 2],
  ["parseDateTime", 2, 3, { clickhouse: "parseDateTimeOrNull", tzAware: true }],
  ["parseDateTimeBestEffort", 1, 1, { clickhouse: "parseDateTime64BestEffortOrNull", suffix: ["6"], tzAware: true }],
  // dates and times
  ["toTimeZone", 2, 2],
  ...same("timeZoneOf timeZoneOffset toYear toQuarter toMonth toDayOfYear toDayOfMonth toHour toMinute toSecond toUnixTimestamp64Milli", 1, 1),
  ...same("toStartOfYear toStartOfISOYear toStartOfQuarter toStartOfMonth toLastDayOfMonth toMonday toStartOfHour toStartOfMinute toStartOfSecond toStartOfFiveMinutes toStartOfTenMinutes toStartOfFifteenMinutes toTime toISOYear toISOWeek", 1, 1),
  ...same("toDayOfWeek toWeek toYearWeek", 1, 3),
  ...same("toUnixTimestamp toStartOfWeek toStartOfDay toLastDayOfWeek", 1, 2),
  ["toStartOfInterval", 2, 3],
  ["age", 3, 3],
  ["dateDiff", 3, 4],
  ["date_diff", 3, 4, { clickhouse: "dateDiff" }],
  ["dateTrunc", 2, 3],
  ["date_trunc", 2, 3, { clickhouse: "dateTrunc" }],
  ...same("dateAdd dateSub", 2, 3),
  ...same("timeStampAdd timeStampSub", 2, 2),
  ["now", 0, 0],
  ["NOW", 0, 0],
  ["today", 0, 0],
  ["yesterday", 0, 0],
  ...same("timeSlot toYYYYMM toYYYYMMDD toYYYYMMDDhhmmss monthName fromUnixTimestamp", 1, 1),
  ...same("addYears addMonths addWeeks addDays addHours addMinutes addSeconds addQuarters subtractYears subtractMonths subtractWeeks subtractDays subtractHours subtractMinutes subtractSeconds subtractQuarters dateName", 2, 2),
  ["timeSlots", 2, 3],
  ["formatDateTime", 2, 3],
  ...same("toIntervalSecond toIntervalMinute toIntervalHour toIntervalDay toIntervalWeek toIntervalMonth toIntervalQuarter toIntervalYear", 1, 1),
  // strings
  ...same("left right repeat appendTrailingCharIfAbsent endsWith startsWith", 2, 2),
  ...same("lengthUTF8 lower upper lowerUTF8 upperUTF8 isValidUTF8 toValidUTF8 reverseUTF8 base64Encode base64Decode tryBase64Decode encodeXMLComponent decodeXMLComponent extractTextFromHTML ascii regexpQuoteMeta", 1, 1),
  ...same("leftPad rightPad leftPadUTF8 rightPadUTF8", 2, 3),
  ...same("format concat concatWithSeparator", 2, null),
  ...same("substring substringUTF8 replace replaceAll replaceOne replaceRegexpAll replaceRegexpOne translate translateUTF8 convertCharset", 3, 3),
  ["trim", 1, 1, { clickhouse: "trimBoth" }],
  ...same("trimLeft trimRight", 1, 1),
  ...same("position positionCaseInsensitive positionUTF8 positionCaseInsensitiveUTF8 countSubstrings countSubstringsCaseInsensitive regexpExtract", 2, 3),
  ...same("multiSearchAllPositions multiSearchFirstPosition multiSearchFirstIndex multiSearchAny multiMatchAny multiMatchAnyIndex multiMatchAllIndices extract extractAll extractAllGroups extractAllGroupsHorizontal extractAllGroupsVertical ngramDistance ngramSearch countMatches", 2, 2),
  ...same("splitByChar splitByString splitByRegexp", 2, 3),
  ...same("splitByWhitespace splitByNonAlpha arrayStringConcat alphaTokens", 1, 2),
  // conditionals and nulls
  ["if", 3, 3],
  ["multiIf", 3, null],
  ...same("isNull isNotNull assumeNotNull toNullable", 1, 1),
  ["coalesce", 1, null],
  ...same("ifNull nullIf", 2, 2),
  // maths
  ...same("e pi", 0, 0),
  ...same("exp log ln exp2 log2 exp10 log10 sqrt cbrt erf erfc lgamma tgamma sin cos tan asin acos atan cosh acosh sinh asinh atanh log1p sign degrees radians factorial intExp2 intExp10 roundToExp2 roundDuration roundAge isFinite isInfinite isNaN", 1, 1),
  ...same("floor ceil trunc round roundBankers", 1, 2),
  ["width_bucket", 4, 4],
  // tuples and maps
  ["tuple", 0, null],
  ["tupleElement", 2, 3],
  ...same("untuple mapKeys mapValues", 1, 1),
  ...same("mapContains mapFromArrays", 2, 2),
  ["map", 2, null],
  // urls
  ...same("protocol domain domainWithoutWWW topLevelDomain firstSignificantSubdomain cutToFirstSignificantSubdomain path pathFull queryString fragment queryStringAndFragment extractURLParameters extractURLParameterNames URLHierarchy URLPathHierarchy encodeURLComponent decodeURLComponent netloc cutWWW cutQueryString cutFragment cutQueryStringAndFragment", 1, 1),
  ...same("extractURLParameter cutURLParameter", 2, 2),
  ["port", 1, 2],
  // json
  ["isValidJSON", 1, 1],
  ...same("JSONHas JSONLength JSONArrayLength JSONType JSONExtractUInt JSONExtractInt JSONExtractFloat JSONExtractBool JSONExtractString JSONExtractKey JSONExtractKeys JSONExtractRaw JSONExtractArrayRaw JSONExtractKeysAndValuesRaw", 1, null),
  ["JSONExtract", 2, null],
  // other
  ["transform", 3, 4],
  ...same("formatReadableDecimalSize formatReadableSize formatReadableQuantity", 1, 1),
  ["formatReadableTimeDelta", 1, 2],
  ["bar", 4, 4],
  // printed as the named action's conditions (action-expr.ts), never as a call
  ["matchesAction", 1, 1],
  // window functions (also valid as plain calls over a window)
  ...same("rank dense_rank row_number", 0, 0),
  ...same("first_value last_value", 1, 1),
  ["nth_value", 2, 2],
  ...same("lagInFrame leadInFrame", 1, 3),
];

const aggregate = (min: number, max: number | null, extra: Partial<FunctionMeta> = {}): Partial<FunctionMeta> & { min: number; max: number | null } => ({ aggregate: true, min, max, ...extra });

/** Aggregates with their `…If` forms (one more argument, the condition). */
function withIf(names: string, min: number, max: number | null): Array<[string, ReturnType<typeof aggregate>]> {
  return names.split(/\s+/).filter(Boolean).flatMap((n) => [
    [n, aggregate(min, max)],
    [`${n}If`, aggregate(min + 1, max === null ? null : max + 1)],
  ]);
}

const aggregateRows: Array<[string, ReturnType<typeof aggregate>]> = [
  ["count", aggregate(0, 1)],
  ["COUNT", aggregate(0, 1, { clickhouse: "count" })],
  ["countIf", aggregate(1, 2)],
  ["countDistinctIf", aggregate(1, 2, { clickhouse: "countIf" })],
  ...withIf("min max sum avg any anyLast anyHeavy stddevPop stddevSamp varPop varSamp skewPop skewSamp kurtPop kurtSamp median medianExact groupArray groupUniqArray groupBitAnd groupBitOr groupBitXor sumWithOverflow deltaSum", 1, 1),
  ...withIf("argMin argMax covarPop covarSamp corr avgWeighted simpleLinearRegression groupArrayInsertAt contingency cramersV theilsU", 2, 2),
  ...withIf("uniq uniqExact uniqHLL12 uniqTheta", 1, null),
  ["quantile", aggregate(1, 1, { minParams: 1, maxParams: 1 })],
  ["quantileIf", aggregate(2, 2, { minParams: 1, maxParams: 1 })],
  ["quantiles", aggregate(1, 1, { minParams: 1, maxParams: null })],
  ["quantilesIf", aggregate(2, 2, { minParams: 1, maxParams: null })],
  ["quantileExact", aggregate(1, 1, { minParams: 1, maxParams: 1 })],
  ["groupArraySample", aggregate(1, 1, { minParams: 1, maxParams: 2 })],
  ["topK", aggregate(1, 1, { minParams: 1, maxParams: 1 })],
  ["sumMap", aggregate(1, 2)],
  ["minMap", aggregate(1, 2)],
  ["maxMap", aggregate(1, 2)],
  // funnels and retention as ClickHouse computes them (parametric: the window, then the mode)
  ["windowFunnel", aggregate(1, 99, { minParams: 1, maxParams: 2 })],
  ["retention", aggregate(1, 32)],
  ["sequenceMatch", aggregate(2, 34, { minParams: 1, maxParams: 1 })],
  ["sequenceCount", aggregate(2, 34, { minParams: 1, maxParams: 1 })],
];

export const FUNCTIONS: ReadonlyMap<string, FunctionMeta> = new Map<string, FunctionMeta>([
  ...scalarRows.map(([name, min, max, extra]): [string, FunctionMeta] => [name, meta(name, min, max, extra)]),
  ...aggregateRows.map(([name, { min, max, ...extra }]): [string, FunctionMeta] => [name, meta(name, min, max, extra)]),
]);

/** Case-insensitive lookups for the few names ClickHouse itself treats so (`COUNT`, `SUM`, `IF`…). */
const lowerNames = new Map([...FUNCTIONS.keys()].map((n) => [n.toLowerCase(), n]));

export function lookupFunction(name: string): FunctionMeta | undefined {
  return FUNCTIONS.get(name) ?? FUNCTIONS.get(tableName(name));
}

/** The name as the function table writes it (`IF` → `if`), for the names ClickHouse reads case-insensitively; others as they are. */
export function tableName(name: string): string {
  if (FUNCTIONS.has(name) || !CASE_INSENSITIVE.has(name.toLowerCase())) return name;
  return lowerNames.get(name.toLowerCase()) ?? name;
}

const CASE_INSENSITIVE = new Set(["count", "sum", "avg", "min", "max", "if", "abs", "length", "lower", "upper", "concat", "substring", "replace", "not", "coalesce", "round", "floor", "ceil", "trim", "extract", "position", "exp", "log", "ln", "sqrt"]);

/** The closest known name, for "Perhaps you meant …" (smallest edit distance, at most 2). */
export function closestFunction(name: string): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const known of FUNCTIONS.keys()) {
    const d = editDistance(name.toLowerCase(), known.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [known, d];
  }
  return best;
}

