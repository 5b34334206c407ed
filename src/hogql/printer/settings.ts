/**
 * The ClickHouse settings every printed query must run under: HogQL's semantics depend on them (PostHog's
 * HogQLGlobalSettings, as printed after its queries). `transform_null_in = 1` makes `NULL IN (…)` compare NULL as a
 * value, so `x NOT IN ('a')` holds where x is NULL. The engine applies them; the printer never prints a SETTINGS
 * clause (a query's own SETTINGS are refused).
 */
export const HOGQL_CLICKHOUSE_SETTINGS = {
  transform_null_in: 1,
  optimize_min_equality_disjunction_chain_length: 4294967295,
  allow_experimental_join_condition: 1,
  format_csv_allow_double_quotes: 0,
  max_ast_elements: 4_000_000,
  max_expanded_ast_elements: 4_000_000,
} as const satisfies Record<string, number>;
