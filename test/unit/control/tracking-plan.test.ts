import { describe, expect, it } from "vitest";
import type { CapturedEvent } from "../../../src/capture/captured-log.ts";
import { compileTrackingPlan, trackingPlanProblem, type TrackingPlan, type Verdict } from "../../../src/control/tracking-plan.ts";

const ev = (event: string, properties: Record<string, unknown>): CapturedEvent => ({
  uuid: "u",
  event,
  distinct_id: "d",
  properties,
  timestamp: "2024-03-05T12:00:00.000Z",
  captured_at: "2024-03-05T12:00:00.000Z",
});

const checkout: TrackingPlan = {
  events: {
    "clicked buy": {
      type: "object",
      required: ["price"],
      properties: { price: { type: "number", minimum: 0 }, cart: { type: "object", properties: { items: { type: "array", items: { type: "string" } } } } },
      additionalProperties: false,
    },
    anything: true,
    nothing: false,
  },
};

type Case = [string, TrackingPlan, CapturedEvent, Verdict];
const cases: Case[] = [
  ["a valid event", checkout, ev("clicked buy", { price: 12 }), { valid: true, errors: [] }],
  ["a wrong type names the property", checkout, ev("clicked buy", { price: "12" }), { valid: false, errors: [{ property: "price", message: "price must be number" }] }],
  ["a missing property", checkout, ev("clicked buy", {}), { valid: false, errors: [{ property: "price", message: "must have required property 'price'" }] }],
  ["a nested property is a dotted path", checkout, ev("clicked buy", { price: 1, cart: { items: ["a", 2] } }), { valid: false, errors: [{ property: "cart.items.1", message: "cart.items.1 must be string" }] }],
  ["a property the plan forbids", checkout, ev("clicked buy", { price: 1, coupon: "X" }), { valid: false, errors: [{ property: "coupon", message: "coupon is not in the plan" }] }],
  ["every error, not the first", checkout, ev("clicked buy", { price: -1, coupon: "X" }), { valid: false, errors: [{ property: "coupon", message: "coupon is not in the plan" }, { property: "price", message: "price must be >= 0" }] }],
  ["a true schema passes anything", checkout, ev("anything", { x: 1 }), { valid: true, errors: [] }],
  ["a false schema passes nothing", checkout, ev("nothing", {}), { valid: false, errors: [{ property: null, message: "properties boolean schema is false" }] }],
  ["an unlisted name passes by default", checkout, ev("$pageview", {}), { valid: true, errors: [] }],
  ["an unlisted name fails under deny", { ...checkout, additional_events: "deny" }, ev("$pageview", {}), { valid: false, errors: [{ property: null, message: 'event "$pageview" is not in the tracking plan' }] }],
];

describe("compileTrackingPlan(plan).judge(event)", () => {
  it.each(cases)("%s", (_name, plan, event, want) => {
    expect(compileTrackingPlan(plan).judge(event)).toEqual(want);
  });

  it("refuses a schema that does not compile, naming its event", () => {
    expect(() => compileTrackingPlan({ events: { x: { type: "nonsense" } } })).toThrow(expect.objectContaining({ body: expect.objectContaining({ attr: "events__x" }) }));
  });
});

describe("trackingPlanProblem", () => {
  it.each<[unknown, string | null]>([
    [{ events: {} }, null],
    [{ events: { a: {} }, additional_events: "deny" }, null],
    [[], "a tracking plan is a JSON object"],
    [{ events: {}, extra: 1 }, 'unknown field "extra" (a plan has "events" and "additional_events")'],
    [{ events: [] }, '"events" must be an object of JSON Schemas by event name'],
    [{ events: { a: 1 } }, 'events["a"] must be a JSON Schema (an object or a boolean)'],
    [{ events: {}, additional_events: "maybe" }, '"additional_events" must be allow or deny'],
  ])("%j → %s", (plan, want) => {
    expect(trackingPlanProblem(plan)).toBe(want);
  });
});
