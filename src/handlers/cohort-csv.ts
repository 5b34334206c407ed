import { parse } from "csv-parse/sync";
import { fail } from "../core/errors.ts";

/**
 * The ids of a static cohort's CSV upload, read as the real service reads them (reference: the cohorts API's CSV
 * upload): a single column is distinct ids, unless its header says person ids or emails; with several columns, the
 * first header naming person ids, else distinct ids, else emails picks the column. Blank cells are skipped.
 */
export type CsvIdType = "person_id" | "distinct_id" | "email";
export interface CsvIds {
  idType: CsvIdType;
  ids: string[];
}

const HEADERS: Record<CsvIdType, readonly string[]> = {
  person_id: ["person_id", "person-id", "person .id"],
  distinct_id: ["distinct_id", "distinct-id"],
  email: ["email", "e-mail"],
};
const PREFERENCE: readonly CsvIdType[] = ["person_id", "distinct_id", "email"];

const headerType = (cell: string): CsvIdType | undefined => PREFERENCE.find((t) => HEADERS[t].includes(cell.trim().toLowerCase()));
const invalid = (detail: string) => fail.invalid("csv", detail);

function rowsOf(text: string): string[][] {
  try {
    return (parse(text, { relax_column_count: true, skip_empty_lines: false, bom: true }) as string[][]).filter((row) => row.some((cell) => cell.trim() !== ""));
  } catch {
    throw invalid("CSV file format is invalid. Please check your file format and try again.");
  }
}

/** Column index and id type of a multi-column file's header, by preference. */
function idColumn(header: string[]): { index: number; idType: CsvIdType } | undefined {
  for (const idType of PREFERENCE) {
    const index = header.findIndex((cell) => headerType(cell) === idType);
    if (index !== -1) return { index, idType };
  }
  return undefined;
}

export function idsFromCsv(text: string): CsvIds {
  const [first, ...rest] = rowsOf(text);
  if (!first) throw invalid("CSV file is empty. Please upload a CSV file with at least one row of data.");
  const named = first.filter((cell) => cell.trim() !== "");
  let found: CsvIds;
  if (named.length <= 1) {
    const type = headerType(first[0] ?? "");
    const idType = type === "person_id" || type === "email" ? type : "distinct_id";
    const rows = idType === "distinct_id" ? [first, ...rest] : rest;
    found = { idType, ids: rows.map((row) => (row[0] ?? "").trim()).filter((id) => id !== "") };
  } else {
    const column = idColumn(first);
    if (!column) {
      throw invalid(
        `Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' (PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: ${named.join(", ")}`,
      );
    }
    found = { idType: column.idType, ids: rest.map((row) => (row[column.index] ?? "").trim()).filter((id) => id !== "") };
  }
  if (!found.ids.length) {
    throw invalid("CSV file contains no valid person IDs, distinct IDs, or email addresses. Please ensure your file has data rows with person IDs, distinct IDs, or email addresses.");
  }
  return found;
}
