import { describe, expect, it } from "vitest";
import { compileTrackingPlan } from "../../../src/control/tracking-plan.ts";
import { PLAN_LIMITS } from "../../../src/control/plan-bounds.ts";

/**
 * What a tracking plan may hold before ajv compiles it (issue 38: `{"$ref": "#"}` overflowed the stack on the first
 * event judged; a 30,000-value enum held the server 3 s compiling). Each refusal is a 400 naming the place.
 */
const refusal = (events: Record<string, unknown>) => {
  try {
    compileTrackingPlan({ events: events as never });
  } catch (e) {
    return (e as { body: { attr: string; detail: string } }).body;
  }
  return null;
};
const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
const props = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: "string" }]));
/** $defs d0…d{n-1}, each naming the next twice: 2^n places once expanded. */
const doubling = (n: number) => ({
  $defs: Object.fromEntries(Array.from({ length: n + 1 }, (_, i) => [`d${i}`, i === n ? { type: "string" } : { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }])),
  $ref: "#/$defs/d0",
});

type Case = [name: string, events: Record<string, unknown>, want: { attr: string; detail: RegExp } | null];

const cases: Case[] = [
  ["a schema that is only a $ref to itself", { signup: { $ref: "#" } }, { attr: "signup__$ref", detail: /leads back to "#"/ }],
  ["a loop of $defs through allOf", { a: { $defs: { x: { allOf: [{ $ref: "#/$defs/y" }] }, y: { $ref: "#/$defs/x" } }, $ref: "#/$defs/x" } }, { attr: "a__$defs__y__$ref", detail: /"#\/\$defs\/y\/\$ref" leads back to "#\/\$defs\/x"/ }],
  ["recursion through properties", { a: { properties: { child: { $ref: "#" } } } }, { attr: "a__properties__child__$ref", detail: /recursive schemas are not accepted/ }],
  ["a $ref to another document", { a: { $ref: "https://example.com/s.json" } }, { attr: "a__$ref", detail: /points inside the same schema/ }],
  ["a $ref to a place that does not exist", { a: { $ref: "#/$defs/none" } }, { attr: "a__$ref", detail: /points at no schema/ }],
  ["an $id below the root", { a: { properties: { b: { $id: "https://example.com/b", type: "string" } } } }, { attr: "a__properties__b__$id", detail: /stands alone/ }],
  ["a doubling chain past the expansion bound", { a: doubling(14) }, { attr: "a", detail: /more than 10000 schemas/ }],
  ["an enum past its bound", { a: { properties: { x: { enum: values(PLAN_LIMITS.listValues + 1) } } } }, { attr: "a__properties__x__enum", detail: /enum list holds at most 500 values; this one holds 501/ }],
  ["a required list past its bound", { a: { required: values(501) } }, { attr: "a__required", detail: /required list holds at most 500/ }],
  ["a dependencies list past its bound (30,000 names ran ajv out of memory)", { a: { dependencies: { x: values(30_000) } } }, { attr: "a__dependencies__x", detail: /dependencies list holds at most 500 values; this one holds 30000/ }],
  ["lists past the plan's bound together", { a: { properties: Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`x${i}`, { enum: values(450) }])) } }, { attr: "", detail: /2000 values together/ }],
  ["more schemas than the plan's bound", { a: { properties: props(PLAN_LIMITS.schemas) } }, { attr: "", detail: /at most 1000 schemas/ }],
  ["a $ref to a sibling $defs entry, twice (no loop)", { a: { $defs: { price: { type: "number" } }, properties: { p: { $ref: "#/$defs/price" }, q: { $ref: "#/$defs/price" } } } }, null],
  ["a doubling chain inside the bound (2^13 places)", { a: doubling(11) }, null],
  ["an enum at its bound", { a: { properties: { x: { enum: values(PLAN_LIMITS.listValues) } } } }, null],
  ["a property named $ref is a name, not a reference", { a: { properties: { $ref: { type: "string" } } } }, null],
];

describe("tracking plan bounds", () => {
  for (const [name, events, want] of cases) {
    it(name, () => {
      const got = refusal(events);
      if (want === null) return expect(got).toBeNull();
      expect(got?.attr).toBe(`events${want.attr ? `__${want.attr}` : ""}`);
      expect(got?.detail).toMatch(want.detail);
    });
  }

  it("an accepted plan with $refs judges events as the schemas say", () => {
    const plan = compileTrackingPlan({ events: { buy: { $defs: { price: { type: "number" } }, type: "object", properties: { price: { $ref: "#/$defs/price" } } } } });
    const event = (properties: Record<string, unknown>) => ({ uuid: "u", event: "buy", distinct_id: "d", properties, timestamp: "", captured_at: "" });
    expect(plan.judge(event({ price: 3 }))).toEqual({ valid: true, errors: [] });
    expect(plan.judge(event({ price: "3" }))).toEqual({ valid: false, errors: [{ property: "price", message: "price must be number" }] });
  });
});
