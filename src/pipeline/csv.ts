/**
 * Cells a spreadsheet would run as a formula (OWASP CSV injection: a leading = + - @ tab or CR) get a `'`
 * prefix; a plain number (`-3`, `-0.5`, `-1e3`) is read as a number, never as a formula, so it is kept as is.
 * The real service's renderer (djangorestframework-csv) neutralises nothing; this is our choice.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Booleans as the real service's renderer writes them: Python's `True`/`False` (reference: ingestion-persons-events §6.5). */
const text = (value: unknown): string =>
  typeof value === "object" ? JSON.stringify(value) : typeof value === "boolean" ? (value ? "True" : "False") : String(value);

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && prefix.split(".").length < 2) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
    return;
  }
  out.set(prefix, value);
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  let written = text(value);
  if (FORMULA_START.test(written) && !PLAIN_NUMBER.test(written)) written = `'${written}`;
  return /[",\r\n]/.test(written) ? `"${written.replace(/"/g, '""')}"` : written;
}

/**
 * Renders rows as CSV: the header is the sorted union of the rows' keys, with one level of nested objects
 * flattened into dotted names (`properties.email`); deeper values are written as JSON.
 */
export function toCsv(rows: readonly unknown[]): string {
  const flat = rows.map((row) => {
    const out = new Map<string, unknown>();
    flatten(row, "", out);
    return out;
  });
  const header = [...new Set(flat.flatMap((r) => [...r.keys()]))].sort();
  const lines = [header.map(cell).join(","), ...flat.map((r) => header.map((h) => cell(r.get(h))).join(","))];
  return lines.join("\r\n") + "\r\n";
}

/** The rows of a response body: a list's `results`, an analysis's `result` list, a bare list, or the object itself. */
export function csvRows(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  if (body && typeof body === "object") {
    const { results, result } = body as { results?: unknown; result?: unknown };
    if (Array.isArray(results)) return results;
    if (Array.isArray(result)) return result;
    return [body];
  }
  return [];
}
