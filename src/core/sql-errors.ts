/** Why a query did not answer. */
export const SQL_ERROR_KINDS = [
  /** No engine on this machine (chdb has no build for it, or its binary is missing). */
  "unavailable",
  /** Ran past its time limit (ClickHouse TIMEOUT_EXCEEDED). */
  "timeout",
  /** Needed more memory than its limit (MEMORY_LIMIT_EXCEEDED). */
  "memory",
  /** Would answer more rows than its limit (TOO_MANY_ROWS_OR_BYTES). */
  "too_many_rows",
  /** Cancelled by its caller (abort signal). */
  "cancelled",
  /** ClickHouse refused the query itself: syntax, unknown name, type error… (`clickhouseCode` says which). */
  "query",
  /** The engine failed (worker exited, folder unusable). */
  "engine",
] as const;
export type SqlErrorKind = (typeof SQL_ERROR_KINDS)[number];

export class SqlEngineError extends Error {
  constructor(
    readonly kind: SqlErrorKind,
    message: string,
    /** ClickHouse's error code, when ClickHouse raised it. */
    readonly clickhouseCode: number | null = null,
  ) {
    super(message);
    this.name = "SqlEngineError";
  }
}

/** ClickHouse error codes (src/Common/ErrorCodes.cpp) that have a kind of their own. */
const KIND_OF_CODE: ReadonlyMap<number, SqlErrorKind> = new Map([
  [159, "timeout"],
  [241, "memory"],
  [396, "too_many_rows"],
  [394, "cancelled"],
]);

/**
 * Codes of an allocation refused by the engine process's own memory limit, where ClickHouse's accounting missed
 * what a query took (CANNOT_ALLOCATE_MEMORY; CANNOT_SCHEDULE_TASK: no memory for a thread's stack). The process
 * keeps the memory it reached and fails even `SELECT 1` after: it is replaced.
 */
const PROCESS_MEMORY_CODES: ReadonlySet<number> = new Set([173, 439]);

/** True when the error leaves the engine's process unable to answer (its memory limit was reached). */
export function exhaustsProcess(code: number | null): boolean {
  return code !== null && PROCESS_MEMORY_CODES.has(code);
}

/** The error of a failed ClickHouse query, its message without the "Code: N. DB::Exception: " prefix. */
export function fromClickhouse(message: string, code: number | null): SqlEngineError {
  const text = message.replace(/^Code: \d+\. DB::(Errno)?Exception: /, "").replace(/ \(version [^)]*\)/, "");
  if (exhaustsProcess(code)) return new SqlEngineError("memory", `The query needed more memory than the SQL engine may take: ${firstSentence(text)}.`, code);
  return new SqlEngineError((code !== null && KIND_OF_CODE.get(code)) || "query", text, code);
}

/** A message's opening up to its stack trace or its first colon-led detail ("Allocator: Cannot malloc 57 MiB"). */
const firstSentence = (text: string): string => text.split(/[,\n]| Stack trace/)[0]!.replace(/[\s:]+$/, "");

/** Where chdb has a build (its optional dependencies @chdb/lib-<platform>): glibc Linux and macOS, x64 and arm64. */
const CHDB_PLATFORMS = "Linux with glibc (x64, arm64) and macOS (x64, arm64)";

export interface PlatformFacts {
  platform: string;
  arch: string;
  /** True on a musl libc (Alpine): chdb's Linux builds need glibc. */
  musl: boolean;
}

export function currentPlatform(): PlatformFacts {
  const report = process.platform === "linux" ? (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined) : undefined;
  return { platform: process.platform, arch: process.arch, musl: process.platform === "linux" && !report?.header?.glibcVersionRuntime };
}

/** The one message every SQL request answers where the engine cannot load: what is missing, and where it exists. */
export function unavailableMessage(facts: PlatformFacts, cause: string): string {
  const here = `${facts.platform}-${facts.arch}${facts.musl ? " (musl)" : ""}`;
  return (
    `SQL queries need the embedded ClickHouse engine (the chdb package), which cannot run on this machine (${here}): ${cause}. ` +
    `chdb exists for ${CHDB_PLATFORMS}; on other platforms (Windows, Alpine/musl) every other part of the API works without it.`
  );
}
