import { describe, expect, it } from "vitest";
import { computeFunnel } from "../../../src/analyses/funnels/index.ts";
import { contextFor, ev, journeys, type ContextOptions, type World } from "./support.ts";

const funnel = (world: World, filter: Record<string, unknown>, options: ContextOptions = {}) => computeFunnel(world.events, filter, contextFor(world, options));
const steps = (...names: string[]) => names.map((id, order) => ({ id, type: "events", order }));

describe("funnel trends (reference §5.6)", () => {
  const march = { events: steps("view", "signup"), date_from: "2024-03-01", date_to: "2024-03-03", funnel_viz_type: "trends" };

  it("conversion rate per entrance day, empty days 0", () => {
    const w = journeys({
      u1: [ev("view", "2024-03-01T10:00"), ev("signup", "2024-03-02T09:00")],
      u2: [ev("view", "2024-03-01T11:00")],
      u3: [ev("view", "2024-03-02T10:00"), ev("signup", "2024-03-02T10:30")],
      u4: [ev("view", "2024-03-02T11:00")],
      u5: [ev("view", "2024-03-02T12:00")],
    });
    expect(funnel(w, march)).toEqual([{ count: 3, data: [50, 33.33, 0], days: ["2024-03-01", "2024-03-02", "2024-03-03"], labels: ["1-Mar-2024", "2-Mar-2024", "3-Mar-2024"] }]);
  });

  it("an actor entering twice in one bucket counts once, converted if any entry converted", () => {
    const w = journeys({ u: [ev("view", "2024-03-03T08:00"), ev("view", "2024-03-03T20:00"), ev("signup", "2024-03-03T21:00")] });
    expect((funnel(w, { ...march, funnel_window_interval: 2, funnel_window_interval_unit: "hour" }) as { data: number[] }[])[0]!.data).toEqual([0, 0, 100]);
  });

  it("the legacy form: no funnel_viz_type but display ActionsLineGraph", () => {
    const w = journeys({ u: [ev("view", "2024-03-02T08:00"), ev("signup", "2024-03-02T09:00")] });
    expect((funnel(w, { ...march, funnel_viz_type: undefined, display: "ActionsLineGraph" }) as { data: number[] }[])[0]!.data).toEqual([0, 100, 0]);
  });

  it("buckets entrances in the project time zone (Los Angeles)", () => {
    const w = journeys({ u: [ev("view", "2024-06-01T03:00"), ev("signup", "2024-06-01T04:00")] });
    const filter = { ...march, date_from: "2024-05-01", date_to: "2024-06-30" };
    expect(funnel(w, { ...filter, interval: "month" }, { timezone: "America/Los_Angeles" })).toMatchObject([{ days: ["2024-05-01", "2024-06-01"], data: [100, 0] }]);
    const daily = funnel(w, filter, { timezone: "America/Los_Angeles" }) as { days: string[]; data: number[] }[];
    expect(daily[0]!.data[daily[0]!.days.indexOf("2024-05-31")]).toBe(100);
  });

  it("funnel_from_step and funnel_to_step pick the conversion measured", () => {
    const w = journeys({
      a: [ev("view", "2024-03-01T10:00"), ev("signup", "2024-03-01T10:10"), ev("pay", "2024-03-01T10:20")],
      b: [ev("view", "2024-03-01T11:00"), ev("signup", "2024-03-01T11:10")],
      c: [ev("view", "2024-03-01T12:00")],
    });
    const three = { ...march, events: steps("view", "signup", "pay") };
    expect((funnel(w, three) as { data: number[] }[])[0]!.data).toEqual([33.33, 0, 0]);
    expect((funnel(w, { ...three, funnel_from_step: 1 }) as { data: number[] }[])[0]!.data).toEqual([50, 0, 0]);
    expect((funnel(w, { ...three, funnel_to_step: 1 }) as { data: number[] }[])[0]!.data).toEqual([66.67, 0, 0]);
  });

  it("with a breakdown: one item per value", () => {
    const w = journeys({ a: [ev("view", "2024-03-01T10:00", { b: "x" }), ev("signup", "2024-03-01T11:00")], c: [ev("view", "2024-03-01T10:00", { b: "y" })] });
    expect((funnel(w, { ...march, breakdown: "b" }) as { breakdown_value: string[]; data: number[] }[]).map((i) => [i.breakdown_value, i.data])).toEqual([[["x"], [100, 0, 0]], [["y"], [0, 0, 0]]]);
  });
});

describe("time to convert (reference §5.7)", () => {
  const ttc = { events: steps("signup", "pay"), date_from: "2024-01-01", date_to: "2024-01-31", funnel_viz_type: "time_to_convert" };
  /** One person per conversion time, signing up on Jan 2 and paying `seconds` later. */
  const converting = (seconds: number[]) =>
    journeys(Object.fromEntries(seconds.map((s, i) => [`p${i}`, [ev("signup", "2024-01-02T00:00"), ev("pay", new Date(Date.parse("2024-01-02T00:00:00Z") + s * 1000).toISOString())]])));

  it("600, 1500, 4200, 8000, 9000 s: 2 bins of 4200 s plus the row for the maximum", () => {
    expect(funnel(converting([600, 1500, 4200, 8000, 9000]), ttc)).toEqual({ bins: [[600, 3], [4800, 1], [9000, 1]], average_conversion_time: 4660 });
  });

  it("bin_count given", () => {
    expect(funnel(converting([600, 1500, 4200, 8000, 9000]), { ...ttc, bin_count: 3 })).toEqual({ bins: [[600, 2], [3400, 1], [6200, 1], [9000, 1]], average_conversion_time: 4660 });
  });

  it("a single value gives width 60", () => {
    expect(funnel(converting([600]), ttc)).toEqual({ bins: [[600, 1], [660, 0]], average_conversion_time: 600 });
  });

  it("nobody converting gives no bins", () => {
    expect(funnel(journeys({ p: [ev("signup", "2024-01-02T00:00")] }), ttc)).toEqual({ bins: [], average_conversion_time: null });
  });

  it("measures from funnel_from_step to funnel_to_step", () => {
    const w = journeys({ p: [ev("view", "2024-01-02T00:00"), ev("signup", "2024-01-02T00:10"), ev("pay", "2024-01-02T00:30")] });
    expect(funnel(w, { ...ttc, events: steps("view", "signup", "pay"), funnel_from_step: 1, funnel_to_step: 2 })).toEqual({ bins: [[1200, 1], [1260, 0]], average_conversion_time: 1200 });
  });
});
