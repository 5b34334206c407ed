import type { Operation } from "openapi-backend";
import { describe, expect, it } from "vitest";
import { dropUndeclaredQuery } from "../../../src/pipeline/undeclared-query.ts";

const operation = (parameters: unknown[]): Operation => ({ operationId: "things_list", method: "get", path: "/things/", parameters }) as unknown as Operation;
const query = (name: string, schema: unknown = { type: "string" }) => ({ in: "query", name, schema });

describe("dropUndeclaredQuery", () => {
  const list = operation([{ in: "path", name: "project_id", schema: { type: "string" } }, query("limit"), query("offset"), query("pinned"), query("search")]);

  it("keeps the declared parameters and removes the others, a note each, naming the declared one likely meant", () => {
    const q: Record<string, unknown> = { limit: "5", pined: "true", Search: "x", colour: "red" };
    const notes = dropUndeclaredQuery(list, q);
    expect(q).toEqual({ limit: "5" });
    expect(notes).toEqual([
      'query parameter "pined" ignored: things_list does not take it (the real service ignores it too); did you mean "pinned"?',
      'query parameter "Search" ignored: things_list does not take it (the real service ignores it too); did you mean "search"?',
      'query parameter "colour" ignored: things_list does not take it (the real service ignores it too)',
    ]);
  });

  it("suggests nothing for a name as short as the edits it would take, nor for a path parameter's name", () => {
    const q: Record<string, unknown> = { of: "1", project_id: "2" };
    expect(dropUndeclaredQuery(list, q)).toEqual([
      'query parameter "of" ignored: things_list does not take it (the real service ignores it too)',
      'query parameter "project_id" ignored: things_list does not take it (the real service ignores it too)',
    ]);
    expect(q).toEqual({});
  });

  it("lets a free-form parameter's names through by its pattern, and any name when it has none", () => {
    const values = operation([query("key"), query("property_filters", { type: "object", propertyNames: { pattern: "^properties_.+" }, additionalProperties: { type: "string" } })]);
    const q: Record<string, unknown> = { key: "$browser", properties_$browser: "Chrome", properties_: "x", colour: "red" };
    expect(dropUndeclaredQuery(values, q)).toHaveLength(2);
    expect(q).toEqual({ key: "$browser", properties_$browser: "Chrome" });
    const open = operation([query("anything", { type: "object" })]);
    const all: Record<string, unknown> = { a: "1", b: "2" };
    expect(dropUndeclaredQuery(open, all)).toEqual([]);
    expect(all).toEqual({ a: "1", b: "2" });
  });
});
