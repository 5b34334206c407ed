import { describe, expect, it } from "vitest";
import { monthsBefore } from "../../../src/analyses/actions/count.ts";
import { compileActionStep, stepConditions } from "../../../src/analyses/shared/action-match.ts";
import { AnalysisInputError } from "../../../src/core/analysis-errors.ts";
import type { EventRecord } from "../../../src/store/schema.ts";
import { chainHref, chainTexts, parseSelector, selectorRegex, tagNameRegex } from "../../../src/util/action-elements.ts";

// A click on <button class="cta">Buy</button> inside <div id="main" data-x="1"> inside <body>, as autocapture writes it.
const CHAIN = 'button.cta:attr__class="cta"nth-child="2"nth-of-type="1"text="Buy";div:attr__data-x="1"attr_id="main"nth-child="1"nth-of-type="1";body:nth-child="2"nth-of-type="1"';
const matches = (selector: string, chain = CHAIN) => new RegExp(selectorRegex(selector)).test(chain);

describe("selectors over an elements chain", () => {
  it("reads the parts innermost first, with their combinator", () => {
    expect(parseSelector("body div > button.cta")).toEqual([
      { tag: "button", classes: ["cta"], attributes: [], direct: false },
      { tag: "div", classes: [], attributes: [], direct: true },
      { tag: "body", classes: [], attributes: [], direct: false },
    ]);
    expect(parseSelector('#main [data-x="1"] a:nth-child(3)')[0]).toEqual({ tag: "a", classes: [], attributes: [["nth-child", "3"]], direct: false });
    expect(parseSelector("div#main")[0]).toMatchObject({ tag: "div", attributes: [["attr_id", "main"]] });
  });

  const cases: Array<[string, boolean]> = [
    ["button", true],
    ["button.cta", true],
    ["button.other", false],
    ["div > button", true],
    ["body > button", false], // the button is not a direct child of body
    ["body button", true], // but a descendant
    ["div#main > button.cta", true],
    ["#main", true],
    ["#other", false],
    ['div[data-x="1"] button', true],
    ['div[data-x="2"] button', false],
    ["button:nth-child(2)", true],
    ["button:nth-child(1)", false],
    ["span", false],
    ["butt", true], // the real service's compiler reads a tag name as the start of an element: a quirk kept
    ["cta", false], // a class is not a tag
    ["* > button", true],
  ];
  it.each(cases)("%s matches: %s", (selector, expected) => {
    expect(matches(selector)).toBe(expected);
  });

  it("an empty selector is no condition", () => {
    expect(selectorRegex("  ")).toBe("");
  });

  it("finds the first href, every text and tag names anywhere", () => {
    const chain = 'span:text="Go";a:href="/next"text="Next";a:href="/last"';
    expect(chainHref(chain)).toBe("/next");
    expect(chainHref(CHAIN)).toBe("");
    expect(chainTexts(chain)).toEqual(["Go", "Next"]);
    expect(new RegExp(tagNameRegex("a")).test(chain)).toBe(true);
    expect(new RegExp(tagNameRegex("spa")).test(chain)).toBe(false);
  });
});

describe("action steps", () => {
  const ctx = { cohorts: [], now: Date.parse("2024-03-05T12:00:00Z"), timezone: "UTC" };
  const event = (name: string, properties: Record<string, unknown>, elements_chain = ""): EventRecord => ({
    uuid: "u",
    project_id: "1",
    event: name,
    distinct_id: "d",
    timestamp: 0,
    properties,
    elements_chain,
  });

  it("counts only set conditions ('' is not set)", () => {
    expect(stepConditions({ event: "", url: null, url_matching: "regex" })).toEqual([]);
    expect(stepConditions({ event: "$pageview", properties: [{ key: "a", value: 1 }] })).toEqual(["event", "properties"]);
  });

  it("checks every condition a step sets; element ones only on $autocapture", () => {
    const click = event("$autocapture", { $current_url: "https://x.test/shop" }, CHAIN);
    const step = (s: object) => compileActionStep({ event: "$autocapture", ...s }, ctx, "steps__0");
    expect(step({ selector: "div > button", text: "buy", text_matching: "contains", url: "/shop" })(click, undefined)).toBe(true);
    expect(step({ selector: "div > button", text: "buy" })(click, undefined)).toBe(false); // exact text is case-sensitive
    expect(step({ url: "/SHOP" })(click, undefined)).toBe(false); // url contains is case-sensitive
    expect(compileActionStep({ event: "custom", selector: "span" }, ctx, "s")(event("custom", {}, CHAIN), undefined)).toBe(true);
    expect(compileActionStep({ url: "/shop" }, ctx, "s")(event("any", {}), undefined)).toBe(false); // no $current_url
  });

  it("refuses a pattern RE2 cannot compile, naming the step's field", () => {
    const bad = () => compileActionStep({ event: "$autocapture", href: "(", href_matching: "regex" }, ctx, "steps__3");
    expect(bad).toThrow(AnalysisInputError);
    expect(bad).toThrow(expect.objectContaining({ attr: "steps__3__href" }));
  });
});

describe("the count window", () => {
  it("is three calendar months back, the day clamped to the month's end", () => {
    expect(new Date(monthsBefore(Date.parse("2024-03-05T12:00:00Z"), 3)).toISOString()).toBe("2023-12-05T12:00:00.000Z");
    expect(new Date(monthsBefore(Date.parse("2024-05-31T08:30:00Z"), 3)).toISOString()).toBe("2024-02-29T08:30:00.000Z");
  });
});
