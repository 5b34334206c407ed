import { describe, expect, it } from "vitest";
import { idsFromCsv } from "../../../src/handlers/cohort-csv.ts";
import { ApiError } from "../../../src/core/errors.ts";

describe("idsFromCsv", () => {
  it.each([
    ["one column without a header is distinct ids, first row included", "a\nb\n\n c \n", { idType: "distinct_id", ids: ["a", "b", "c"] }],
    ["one column under distinct_id keeps its header as an id (the real service does)", "distinct_id\na\n", { idType: "distinct_id", ids: ["distinct_id", "a"] }],
    ["one column under Person .id is person ids", "Person .id\nu1\nu2\n", { idType: "person_id", ids: ["u1", "u2"] }],
    ["one column under E-Mail is emails", "E-Mail\nx@y.z\n", { idType: "email", ids: ["x@y.z"] }],
    ["leading blank rows are skipped", "\n\nemail\nx@y.z\n", { idType: "email", ids: ["x@y.z"] }],
    ["a byte order mark is not part of the header", "\uFEFFemail\nx@y.z\n", { idType: "email", ids: ["x@y.z"] }],
    ["person_id is preferred to distinct_id, then email", "email,distinct_id,person_id\na@b.c,d1,p1\n", { idType: "person_id", ids: ["p1"] }],
    ["distinct-id is preferred to email", "email,distinct-id\na@b.c,d1\n", { idType: "distinct_id", ids: ["d1"] }],
    ["quoted cells with commas, short rows and blank cells", 'name,email\n"Doe, Jane",jane@x.io\nshort\nBob,\n', { idType: "email", ids: ["jane@x.io"] }],
    ["a second column that is blank in the header is one column", "a,\nb,\n", { idType: "distinct_id", ids: ["a", "b"] }],
  ])("%s", (_, csv, want) => expect(idsFromCsv(csv)).toEqual(want));

  it.each([
    ["an empty file", "\n \n", "CSV file is empty."],
    ["a header without rows", "person_id\n", "CSV file contains no valid person IDs"],
    ["several columns without an id header", "name,plan\nann,pro\n", "Found columns: name, plan"],
    ["an unterminated quote", 'email\n"x@y.z\n', "CSV file format is invalid."],
  ])("refuses %s with attr csv", (_, csv, detail) => {
    let error: unknown;
    try {
      idsFromCsv(csv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).body).toMatchObject({ type: "validation_error", attr: "csv", detail: expect.stringContaining(detail) });
  });
});
