import type { ActionRecord } from "../../store/schema.ts";
import type { TableName } from "./schema.ts";

/** What the printer needs from its caller: whose rows, which clock and zone, which limits, which filters. */
export interface PrintContext {
  /** Our project id; every table read is filtered on it. */
  teamId: number;
  /** The project's time zone: date-time fields and time-zone-aware functions are printed in it. */
  timezone: string;
  /** The injected clock (epoch ms): `now()` prints as this instant, never the engine's clock. */
  now: number;
  /** Property definitions' types by kind (`event`, `person`, `group`): `Numeric`, `Boolean`, `DateTime`, `String`. */
  propertyTypes?: Partial<Record<string, Record<string, string>>>;
  /**
   * The engine's materialised property columns (the real service materialises hot properties): table →
   * `properties.<key>` → column name. Given by the engine, which knows its mirror; absent, properties are read from JSON.
   */
  materializedProperties?: Partial<Record<TableName, Record<string, string>>>;
  /** Rows when the query names no LIMIT (the real service: 100). */
  defaultLimit: number;
  /** The most rows a query may return (the real service: 50,000). */
  maxLimit: number;
  /** What `{filters}` stands for: HogQLFilters' date range and property filters. */
  filters?: HogqlFilters;
  /** The project's test-account filters, applied by `{filters}` when `filters.filterTestAccounts` is set. */
  testAccountFilters?: PropertyFilter[];
  /** The project's actions that are not deleted: what `matchesAction(id or name)` reads. */
  actions?: readonly ActionRecord[];
  /** What `{variables.x}` stands for. */
  variables?: Record<string, unknown>;
}

export interface HogqlFilters {
  dateRange?: { date_from?: string | null; date_to?: string | null };
  properties?: PropertyFilter[];
  /** Adds the project's test-account filters (`testAccountFilters` in the print context). */
  filterTestAccounts?: boolean;
}

export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string;
  type?: "event" | "person" | "session" | "group";
  /** A group filter's group type (which `$group_N` it is about). */
  group_type_index?: number;
}

export interface Printed {
  /** The SQL ClickHouse runs; its top LIMIT is one more than `limit`, so more rows than `limit` means hasMore. */
  clickhouse: string;
  /** The query as HogQL prints it back. */
  hogql: string;
  /** The columns' names as HogQL names them. */
  columns: string[];
  /** The rows the answer may hold (the query's LIMIT, else the default, at most the maximum). */
  limit: number;
}
