import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { generateFixtures } from "../../src/fixtures/generate.ts";

const require = createRequire(import.meta.url);
const schema = require("../../fixtures/fixtures.schema.json") as object;
const NOW = new Date("2024-06-15T12:00:00Z");

function validator() {
  // Strict, but for `required` under `not` (the shared schema's static-or-dynamic cohort rule).
  const ajv = new Ajv2020.default({ allErrors: true, strict: true, strictRequired: false });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

describe("generated fixture document", () => {
  const validate = validator();

  it.each([
    ["small", { seed: 7, now: NOW, persons: 60, events: 3_000 }],
    ["default size", { seed: 42, now: NOW }],
  ])("validates against fixtures.schema.json (%s)", (_, options) => {
    const doc = generateFixtures(options);
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it("survives a JSON round trip unchanged (only JSON values inside)", () => {
    const doc = generateFixtures({ seed: 7, now: NOW, persons: 60, events: 3_000 });
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});
