/**
 * Actions (beyond the spec: the real service's actions API) on fixtures/scenarios/basic.json (clock frozen at
 * 2024-03-05T12:00Z, project 1 in UTC, action 1 "Signed up" = signup events) plus these events of 2024-03-04,
 * whose matches below are counted by hand:
 *   e1 u1 $pageview   10:00 https://shop.example/pricing?plan=pro
 *   e2 u1 $pageview   10:05 https://shop.example/Pricing
 *   e3 u2 $pageview   11:00 https://shop.example/docs/pricing-faq
 *   e4 u1 $autocapture 12:00 clicked <button class="btn cta">Sign up</button> right inside <div class="hero">
 *   e5 u2 $autocapture 12:30 clicked <a class="nav-link" href="/pricing">Pricing</a> in <nav> in <div class="hero">
 *   e6 u2 $autocapture 13:00 clicked <span>Sign up now</span> in <button class="cta"> in <form>
 *   e7 u1 clicked     13:30 (a custom event carrying e4's chain)
 *   e8 u1 signup      14:00
 * Every response is validated against the document by the test client.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FixtureDocument } from "../../src/store/fixture-document.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

const BUTTON_IN_HERO =
  'button.btn.cta:attr__class="btn cta"nth-child="2"nth-of-type="1"text="Sign up";div.hero:attr__class="hero"nth-child="1"nth-of-type="1";body:nth-child="2"nth-of-type="1"';
const LINK_IN_NAV =
  'a.nav-link:attr__class="nav-link"attr__href="/pricing"href="/pricing"nth-child="1"nth-of-type="1"text="Pricing";nav:nth-child="1"nth-of-type="1";div.hero:attr__class="hero"nth-child="1"nth-of-type="1";body:nth-child="2"nth-of-type="1"';
const SPAN_IN_FORM = 'span:nth-child="1"nth-of-type="1"text="Sign up now";button.cta:attr__class="cta"nth-child="1"nth-of-type="1";form:nth-child="1"nth-of-type="1"';

function dataset(): FixtureDocument {
  const doc = scenario("basic");
  let n = 100;
  const event = (distinct_id: string, name: string, time: string, properties: Record<string, string> = {}, elements_chain?: string) => ({
    project_id: "1",
    uuid: `01890000-0000-4000-8000-000000000${n++}`,
    distinct_id,
    event: name,
    timestamp: `2024-03-04T${time}:00Z`,
    properties,
    ...(elements_chain ? { elements_chain } : {}),
  });
  doc.events = [
    ...(doc.events ?? []),
    event("u1", "$pageview", "10:00", { $current_url: "https://shop.example/pricing?plan=pro" }),
    event("u1", "$pageview", "10:05", { $current_url: "https://shop.example/Pricing" }),
    event("u2", "$pageview", "11:00", { $current_url: "https://shop.example/docs/pricing-faq" }),
    event("u1", "$autocapture", "12:00", { $current_url: "https://shop.example/" }, BUTTON_IN_HERO),
    event("u2", "$autocapture", "12:30", { $current_url: "https://shop.example/" }, LINK_IN_NAV),
    event("u2", "$autocapture", "13:00", { $current_url: "https://shop.example/signup" }, SPAN_IN_FORM),
    event("u1", "clicked", "13:30", {}, BUTTON_IN_HERO),
    event("u1", "signup", "14:00"),
  ];
  return doc;
}

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(dataset());
});
afterEach(() => s.close());

const P = "/api/projects/1";
const pricingContains = { event: "$pageview", url: "/pricing", url_matching: "contains" };

async function create(body: Record<string, unknown>) {
  const res = await s.post(`${P}/actions/`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; name: string };
}

const countOf = async (id: number) => (await s.get(`${P}/actions/${id}/count/`)).body.count as number;
/** Events the action matched on 2024-03-01 … 03-05 by day, through the trend endpoint ([] when it names no action). */
async function trend(id: number): Promise<number[]> {
  const res = await s.post(`${P}/insights/trend/`, { actions: [{ id, type: "actions", order: 0 }], date_from: "2024-03-01", date_to: "2024-03-05", interval: "day" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.result[0]?.data ?? [];
}
async function hogqlCount(condition: string) {
  return s.post(`${P}/query/`, { query: { kind: "HogQLQuery", query: `select count() from events where ${condition}` } });
}

describe("the actions API", () => {
  it("creates an action with the real service's fields, lists, retrieves and searches it", async () => {
    const res = await s.post(`${P}/actions/`, { name: "Pricing pages", description: "Any page about pricing", tags: ["web"], steps: [pricingContains], id: 999, team_id: 5 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Pricing pages",
      description: "Any page about pricing",
      tags: ["web"],
      post_to_slack: false,
      slack_message_format: "",
      deleted: false,
      is_calculating: false,
      team_id: 1,
      is_action: true,
      bytecode_error: null,
      created_at: "2024-03-05T12:00:00.000Z",
      last_calculated_at: "2024-03-05T12:00:00.000Z",
    });
    expect(res.body.id).toBe(2); // read-only id sent along is ignored: the next after fixture action 1
    expect(res.body.created_by).toMatchObject({ id: expect.any(Number), email: expect.any(String) });
    expect(res.body.steps).toEqual([{ ...pricingContains, properties: null, selector: null, selector_regex: null, tag_name: null, text: null, text_matching: null, href: null, href_matching: null }]);

    expect((await s.get(`${P}/actions/2/`)).body).toEqual(res.body);
    const list = await s.get(`${P}/actions/`);
    expect(list.body).toMatchObject({ count: 2, next: null, previous: null });
    // Most recently calculated first: the new action, then the fixture's.
    expect(list.body.results.map((a: { id: number }) => a.id)).toEqual([2, 1]);
    expect((await s.get(`${P}/actions/?search=PRICING`)).body.results.map((a: { id: number }) => a.id)).toEqual([2]);
    expect((await s.get(`${P}/actions/?search=about%20pricing`)).body.count).toBe(1);
    expect((await s.get(`${P}/actions/?limit=1`)).body.next).toContain("offset=1");
    expect((await s.get("/api/projects/2/actions/")).body.results.map((a: { name: string }) => a.name)).toEqual([]);
    expect((await s.get("/api/projects/2/actions/2/")).status).toBe(404);
  });

  it("updates with PATCH and PUT, soft-deletes with deleted: true and restores with deleted: false", async () => {
    const { id } = await create({ name: "Pricing pages", steps: [pricingContains] });
    const renamed = await s.patch(`${P}/actions/${id}/`, { name: "Pricing", post_to_slack: true });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "Pricing", post_to_slack: true, steps: [expect.objectContaining(pricingContains)] });
    const put = await s.request("PUT", `${P}/actions/${id}/`, { body: { name: "Pricing again", steps: [{ event: "$pageview", url: "https://shop.example/Pricing", url_matching: "exact" }] } });
    expect(put.status).toBe(200);
    expect(put.body.steps).toHaveLength(1);
    expect(put.body.steps[0]).toMatchObject({ url_matching: "exact" });
    expect((await s.request("PUT", `${P}/actions/${id}/`, { body: { steps: [] } })).status).toBe(400);

    expect((await s.del(`${P}/actions/${id}/`)).status).toBe(405);
    expect((await s.patch(`${P}/actions/${id}/`, { deleted: true })).body.deleted).toBe(true);
    expect((await s.get(`${P}/actions/${id}/`)).status).toBe(404);
    expect((await s.get(`${P}/actions/`)).body.results.map((a: { id: number }) => a.id)).toEqual([1]);
    expect((await s.patch(`${P}/actions/${id}/`, { name: "x" })).status).toBe(404);
    expect(await trend(id)).toEqual([]);
    const restored = await s.patch(`${P}/actions/${id}/`, { deleted: false });
    expect(restored.body.deleted).toBe(false);
    expect(await trend(id)).toEqual([0, 0, 0, 1, 0]);
  });

  it("writes activity entries for create, update and delete", async () => {
    const { id } = await create({ name: "Pricing pages", steps: [pricingContains] });
    await s.patch(`${P}/actions/${id}/`, { description: "about pricing" });
    await s.patch(`${P}/actions/${id}/`, { deleted: true });
    const entries = s.store.activity.list("1", "Action", String(id));
    expect(entries.map((e) => e.activity)).toEqual(["deleted", "updated", "created"]);
    expect(entries[1]!.detail.changes).toEqual([{ type: "Action", action: "changed", field: "description", before: "", after: "about pricing" }]);
  });

  it("refuses a clashing name, a step without a condition and a bad pattern, naming the field", async () => {
    await create({ name: "Pricing pages", steps: [pricingContains] });
    const clash = await s.post(`${P}/actions/`, { name: "Pricing pages", steps: [pricingContains] });
    expect(clash.status).toBe(400);
    expect(clash.body).toMatchObject({ type: "validation_error", code: "unique", attr: "name", detail: "This project already has an action with this name, ID 2" });
    const empty = await s.post(`${P}/actions/`, { name: "Empty", steps: [{ event: "$pageview" }, { url_matching: "regex" }] });
    expect(empty.status).toBe(400);
    expect(empty.body.attr).toBe("steps__1");
    const badUrl = await s.post(`${P}/actions/`, { name: "Bad", steps: [{ url: "(unclosed", url_matching: "regex" }] });
    expect(badUrl.status).toBe(400);
    expect(badUrl.body.attr).toBe("steps__0__url");
    const badText = await s.post(`${P}/actions/`, { name: "Bad", steps: [{ event: "$autocapture", text: "a(?<=b)", text_matching: "regex" }] });
    expect(badText.body.attr).toBe("steps__0__text");
    const badMatching = await s.post(`${P}/actions/`, { name: "Bad", steps: [{ url: "/x", url_matching: "startswith" }] });
    expect(badMatching.status).toBe(400);
    expect(badMatching.body.attr).toContain("url_matching");
    const noName = await s.post(`${P}/actions/`, { steps: [pricingContains] });
    expect(noName.status).toBe(400);
    expect(noName.body.attr).toBe("name");
    // The same name in another project, or of a deleted action, is free.
    expect((await s.post("/api/projects/2/actions/", { name: "Pricing pages", steps: [pricingContains] })).status).toBe(201);
  });
});

describe("step matching, in analyses, count and HogQL alike", () => {
  // [steps, the events matched (by hand, from the list at the top)]
  const cases: Array<[string, Record<string, unknown>[], number]> = [
    ["url contains is case-sensitive LIKE: e1, e3 (not /Pricing)", [pricingContains], 2],
    ["url regex: e1", [{ event: "$pageview", url: "^https://shop\\.example/pricing", url_matching: "regex" }], 1],
    ["url exact: e2", [{ event: "$pageview", url: "https://shop.example/Pricing", url_matching: "exact" }], 1],
    ["url of any event, contains with _ as any one character: e1, e2, e3", [{ url: "/_ricing" }], 3],
    ["selector with a direct child: e4 only (e6's button.cta is in a form)", [{ event: "$autocapture", selector: "div > button.cta" }], 1],
    ["selector with a descendant: e5 (its a is in nav in div.hero)", [{ event: "$autocapture", selector: "div.hero a" }], 1],
    ["selector by attribute and position: e5", [{ event: "$autocapture", selector: 'a[href="/pricing"]:nth-child(1)' }], 1],
    ["text contains, case-insensitive: e4, e6", [{ event: "$autocapture", text: "sign UP", text_matching: "contains" }], 2],
    ["text exact by default: e4", [{ event: "$autocapture", text: "Sign up" }], 1],
    ["text regex: e6", [{ event: "$autocapture", text: "now$", text_matching: "regex" }], 1],
    ["href exact: e5", [{ event: "$autocapture", href: "/pricing" }], 1],
    ["href contains, case-insensitive: e5", [{ event: "$autocapture", href: "PRIC", href_matching: "contains" }], 1],
    ["tag name anywhere in the chain: e6", [{ event: "$autocapture", tag_name: "form" }], 1],
    ["element conditions only for $autocapture: e7 matches though its chain has no nav", [{ event: "clicked", selector: "nav" }], 1],
    ["properties: e4, e5 (autocaptures on the home page)", [{ event: "$autocapture", properties: [{ key: "$current_url", value: "https://shop.example/", operator: "exact", type: "event" }] }], 2],
    ["steps are ORed: e1, e3 and e5", [pricingContains, { event: "$autocapture", href: "/pricing" }], 3],
  ];

  it.each(cases)("%s", async (name, steps, expected) => {
    const { id } = await create({ name, steps });
    expect(await trend(id)).toEqual([0, 0, 0, expected, 0]);
    expect(await countOf(id)).toBe(expected);
    const byName = await hogqlCount(`matchesAction('${name.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}')`);
    expect(byName.status, JSON.stringify(byName.body)).toBe(200);
    expect(byName.body.results).toEqual([[expected]]);
    expect((await hogqlCount(`matchesAction(${id})`)).body.results).toEqual([[expected]]);
  });
});

describe("an action created through the API", () => {
  it("is a series at once, and a change of steps changes the results", async () => {
    // Asked before it exists: id 2 names no action yet.
    expect(await trend(2)).toEqual([]);
    const { id } = await create({ name: "Pricing pages", steps: [pricingContains] });
    expect(id).toBe(2);
    expect(await trend(id)).toEqual([0, 0, 0, 2, 0]);
    const before = (await s.get(`${P}/actions/${id}/`)).body.last_calculated_at;
    s.clock.set(Date.parse("2024-03-05T13:00:00Z"));
    const updated = await s.patch(`${P}/actions/${id}/`, { steps: [{ event: "$pageview", url: "https://shop.example/Pricing", url_matching: "exact" }] });
    expect(await trend(id)).toEqual([0, 0, 0, 1, 0]);
    expect(updated.body.last_calculated_at).toBe("2024-03-05T13:00:00.000Z");
    expect(before).toBe("2024-03-05T12:00:00.000Z");
    const renamed = await s.patch(`${P}/actions/${id}/`, { name: "Pricing (exact)" });
    expect(renamed.body.last_calculated_at).toBe(updated.body.last_calculated_at);
  });

  it("is a funnel step: u1 and u2 saw pricing, u1 then signed up", async () => {
    const { id } = await create({ name: "Pricing pages", steps: [pricingContains] });
    const res = await s.post(`${P}/insights/funnel/`, {
      actions: [{ id, type: "actions", order: 0 }],
      events: [{ id: "signup", type: "events", order: 1 }],
      date_from: "2024-03-04",
      date_to: "2024-03-05",
    });
    expect(res.status).toBe(200);
    expect(res.body.result.map((step: { count: number }) => step.count)).toEqual([2, 1]);
    expect(res.body.result[0]).toMatchObject({ action_id: id, name: "Pricing pages", type: "actions" });
  });

  it("is an ActionsNode of a TrendsQuery", async () => {
    const { id } = await create({ name: "Pricing pages", steps: [pricingContains] });
    const node = { kind: "TrendsQuery", series: [{ kind: "ActionsNode", id }], dateRange: { date_from: "2024-03-01", date_to: "2024-03-05" }, interval: "day" };
    const res = await s.post(`${P}/query/`, { query: node });
    expect(res.status).toBe(200);
    expect(res.body.results[0].data).toEqual([0, 0, 0, 2, 0]);
    expect(res.body.results[0].label).toBe("Pricing pages");
  });
});

describe("matchesAction in HogQL", () => {
  it("reads the caller's project only, and an unknown or deleted action is a 400", async () => {
    const other = await s.post("/api/projects/2/actions/", { name: "Elsewhere", steps: [{ event: "$screen" }] });
    expect((await hogqlCount("matchesAction('Elsewhere')")).status).toBe(400);
    expect((await hogqlCount(`matchesAction(${other.body.id})`)).status).toBe(400);
    const unknown = await hogqlCount("matchesAction('Nope')");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: "validation_error", attr: "query__query" });
    expect(unknown.body.detail).toContain("Nope");
    const { id } = await create({ name: "Pricing pages", steps: [pricingContains] });
    await s.patch(`${P}/actions/${id}/`, { deleted: true });
    expect((await hogqlCount(`matchesAction(${id})`)).status).toBe(400);
  });

  it("refuses, naming the action, a step condition HogQL cannot print, which analyses still match", async () => {
    const { id } = await create({ name: "Mid-size purchases", steps: [{ event: "purchase", properties: [{ key: "amount", value: [40, 60], operator: "between", type: "event" }] }] });
    // basic.json: a's purchase of 50 on 03-01 (b's 30 on 03-03 is outside).
    expect(await trend(id)).toEqual([1, 0, 0, 0, 0]);
    const res = await hogqlCount(`matchesAction(${id})`);
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("query__query");
    expect(res.body.detail).toContain(`matchesAction(${id}): steps__0__properties__0__operator`);
  });

  it("works beside other conditions and on the fixture's own action", async () => {
    expect((await hogqlCount("matchesAction('Signed up')")).body.results).toEqual([[4]]);
    expect((await hogqlCount("matchesAction(1) and distinct_id = 'u1'")).body.results).toEqual([[1]]);
  });
});

describe("the bundled scenarios' actions", () => {
  it("load with the API's fields and count their events", async () => {
    const sessions = await startTestServer(scenario("sessions"));
    const funnels = await startTestServer(scenario("funnels"));
    try {
      // sessions.json: bob viewed https://shop.io/pricing on 03-01 and 03-02.
      expect((await sessions.get(`${P}/actions/1/`)).body).toMatchObject({ name: "Viewed pricing", created_at: "2024-03-05T12:00:00.000Z", deleted: false });
      expect((await sessions.get(`${P}/actions/1/count/`)).body.count).toBe(2);
      // funnels.json: five signups and four created projects.
      expect((await funnels.get(`${P}/actions/1/count/`)).body.count).toBe(9);
    } finally {
      await Promise.all([sessions.close(), funnels.close()]);
    }
  });
});
