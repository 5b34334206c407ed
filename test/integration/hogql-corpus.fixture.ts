import type { FixtureDocument } from "../../src/store/fixture-document.ts";

/**
 * The HogQL corpus's dataset (one document in the fixture format, ../shared/fixtures.schema.json). Clock frozen at
 * 2024-03-08T12:00:00Z; project 1 "Shop" in UTC, project 2 "Other" (its rows must never show through project 1).
 *
 * Project 1 persons (uuid · distinct ids · properties · created):
 *   ann  …0a  ann-anon, ann@example.com (merged)  email ann@example.com, plan pro   2024-02-01
 *   bob  …0b  bob                                 email bob@example.com, plan free  2024-02-15
 *   cat  …0c  cat                                 email cat@example.com (no plan)   2024-03-01
 *   dan  …0d  dan-1, dan-2 (merged)               plan pro (no email)               2024-03-02
 * Group type 0 "company": acme (name Acme, employees 500), globex (name Globex, employees 40). ann's and dan's
 * events are in acme, bob's in globex, cat's in none.
 *
 * Project 1 events (# · distinct id · event · UTC time · $browser · $pathname · $session_id · extra). Every event
 * with a $pathname has $current_url = https://<host><path>, host shop.example.com unless noted.
 *    1 ann-anon         $pageview  03-03 23:30  Chrome   /          s-ann-0
 *    2 ann-anon         $pageview  03-04 08:00  Chrome   /          s-ann-1  $active_feature_flags [new-checkout, dark-mode]
 *    3 ann-anon         $pageview  03-04 08:05  Chrome   /pricing   s-ann-1  url …/pricing?ref=newsletter
 *    4 ann-anon         signup     03-04 08:10  Chrome   /signup    s-ann-1
 *    5 ann@example.com  $pageview  03-04 08:12  Chrome   /products  s-ann-1
 *    6 ann@example.com  purchase   03-04 08:20  Chrome   /checkout  s-ann-1  amount 120
 *    7 ann@example.com  $pageview  03-05 09:00  Chrome   /          s-ann-2
 *    8 ann@example.com  $pageleave 03-05 09:03  Chrome   /          s-ann-2
 *    9 ann@example.com  plan_changed 03-06 12:00  (no $browser, no session)   from free, to pro
 *   10 ann@example.com  $pageview  03-06 13:00  Chrome   /products  s-ann-4
 *   11 ann@example.com  $pageview  03-07 14:00  Safari   /pricing   s-ann-3
 *   12 ann@example.com  purchase   03-07 14:30  Safari   /checkout  s-ann-3  amount 80
 *   13 ann@example.com  $pageleave 03-07 14:31  Safari   /checkout  s-ann-3
 *   14 bob              $pageview  03-04 10:00  Firefox  /          s-bob-1  url …/?utm_source=google, $active_feature_flags [dark-mode]
 *   15 bob              $pageview  03-04 10:02  Firefox  /pricing   s-bob-1
 *   16 bob              $pageleave 03-04 10:04  Firefox  /pricing   s-bob-1
 *   17 bob              $pageview  03-05 08:00  Firefox  /          s-bob-5
 *   18 bob              $pageview  03-05 23:50  Firefox  /products  s-bob-2
 *   19 bob              signup     03-06 00:05  Firefox  /signup    s-bob-2
 *   20 bob              purchase   03-06 00:15  Firefox  /checkout  s-bob-2  amount 30
 *   21 bob              $pageview  03-06 11:00  (no $browser key)  /blog  s-bob-3
 *   22 bob              plan_changed 03-07 10:00  (no $browser, no session)   from trial, to free, tags [vip, beta],
 *                                                   address {city Berlin, zips [10115]}
 *   23 bob              $pageview  03-07 16:00  Firefox  /blog/post-1  s-bob-4
 *   24 bob              $pageview  03-08 09:00  Firefox  /          s-bob-6
 *   25 cat              $pageview  03-05 12:00  Safari   /          s-cat-1  host blog.example.com
 *   26 cat              $pageview  03-05 12:01  Safari   /about     s-cat-1  host blog.example.com
 *   27 cat              $pageview  03-06 18:00  $browser JSON null  /  s-cat-2
 *   28 cat              signup     03-06 18:10  Safari   /signup    s-cat-2
 *   29 cat              $pageleave 03-06 18:11  Safari   /signup    s-cat-2
 *   30 cat              $pageview  03-07 20:00  Safari   /pricing   s-cat-3
 *   31 cat              purchase   03-07 20:10  Safari   /checkout  s-cat-3  amount 15
 *   32 dan-1            $pageview  03-04 22:00  Edge     /          s-dan-1
 *   33 dan-1            $pageview  03-04 22:30  Edge     /pricing   s-dan-1
 *   34 dan-1            $pageview  03-05 06:00  Edge     /          s-dan-4
 *   35 dan-2            $pageview  03-06 07:00  Chrome   /products  s-dan-2
 *   36 dan-2            purchase   03-06 07:10  Chrome   /checkout  s-dan-2  amount 45.5
 *   37 dan-2            purchase   03-06 07:12  Chrome   /checkout  s-dan-2  amount 200
 *   38 dan-2            $pageview  03-07 09:00  Chrome   /pricing   s-dan-3
 *   39 dan-2            signup     03-07 09:05  Chrome   /signup    s-dan-3
 *   40 dan-2            $pageleave 03-07 09:10  Chrome   /signup    s-dan-3
 * Totals: 23 $pageview, 5 $pageleave, 4 signup, 6 purchase (amounts 120 80 30 15 45.5 200, sum 490.5), 2 plan_changed.
 *
 * Project 2: eve (email eve@other.com, plan secret) with distinct ids eve and bob (the same distinct id as project
 * 1's bob), company evilcorp; 4 events: eve $pageview/purchase (amount 999) and bob $pageview/purchase (amount 999),
 * on 03-05 and 03-06, Chrome, sessions s-eve-1 and s-bob-1 (project 1 also has a session s-bob-1).
 */
export const CORPUS_NOW = "2024-03-08T12:00:00Z";

const PERSON = { ann: "00000000-0000-4000-8000-00000000000a", bob: "00000000-0000-4000-8000-00000000000b", cat: "00000000-0000-4000-8000-00000000000c", dan: "00000000-0000-4000-8000-00000000000d", eve: "00000000-0000-4000-8000-00000000000e" };
export const PERSON_UUIDS = PERSON;

type Row = [distinctId: string, event: string, time: string, browser: string | null | undefined, path: string | null, session: string | null, extra?: Record<string, unknown>];

const rows: Row[] = [
  ["ann-anon", "$pageview", "03-03T23:30", "Chrome", "/", "s-ann-0"],
  ["ann-anon", "$pageview", "03-04T08:00", "Chrome", "/", "s-ann-1", { $active_feature_flags: ["new-checkout", "dark-mode"] }],
  ["ann-anon", "$pageview", "03-04T08:05", "Chrome", "/pricing", "s-ann-1", { $current_url: "https://shop.example.com/pricing?ref=newsletter" }],
  ["ann-anon", "signup", "03-04T08:10", "Chrome", "/signup", "s-ann-1"],
  ["ann@example.com", "$pageview", "03-04T08:12", "Chrome", "/products", "s-ann-1"],
  ["ann@example.com", "purchase", "03-04T08:20", "Chrome", "/checkout", "s-ann-1", { amount: 120 }],
  ["ann@example.com", "$pageview", "03-05T09:00", "Chrome", "/", "s-ann-2"],
  ["ann@example.com", "$pageleave", "03-05T09:03", "Chrome", "/", "s-ann-2"],
  ["ann@example.com", "plan_changed", "03-06T12:00", undefined, null, null, { from: "free", to: "pro" }],
  ["ann@example.com", "$pageview", "03-06T13:00", "Chrome", "/products", "s-ann-4"],
  ["ann@example.com", "$pageview", "03-07T14:00", "Safari", "/pricing", "s-ann-3"],
  ["ann@example.com", "purchase", "03-07T14:30", "Safari", "/checkout", "s-ann-3", { amount: 80 }],
  ["ann@example.com", "$pageleave", "03-07T14:31", "Safari", "/checkout", "s-ann-3"],
  ["bob", "$pageview", "03-04T10:00", "Firefox", "/", "s-bob-1", { $current_url: "https://shop.example.com/?utm_source=google", $active_feature_flags: ["dark-mode"] }],
  ["bob", "$pageview", "03-04T10:02", "Firefox", "/pricing", "s-bob-1"],
  ["bob", "$pageleave", "03-04T10:04", "Firefox", "/pricing", "s-bob-1"],
  ["bob", "$pageview", "03-05T08:00", "Firefox", "/", "s-bob-5"],
  ["bob", "$pageview", "03-05T23:50", "Firefox", "/products", "s-bob-2"],
  ["bob", "signup", "03-06T00:05", "Firefox", "/signup", "s-bob-2"],
  ["bob", "purchase", "03-06T00:15", "Firefox", "/checkout", "s-bob-2", { amount: 30 }],
  ["bob", "$pageview", "03-06T11:00", undefined, "/blog", "s-bob-3"],
  ["bob", "plan_changed", "03-07T10:00", undefined, null, null, { from: "trial", to: "free", tags: ["vip", "beta"], address: { city: "Berlin", zips: ["10115"] } }],
  ["bob", "$pageview", "03-07T16:00", "Firefox", "/blog/post-1", "s-bob-4"],
  ["bob", "$pageview", "03-08T09:00", "Firefox", "/", "s-bob-6"],
  ["cat", "$pageview", "03-05T12:00", "Safari", "/", "s-cat-1", { $current_url: "https://blog.example.com/" }],
  ["cat", "$pageview", "03-05T12:01", "Safari", "/about", "s-cat-1", { $current_url: "https://blog.example.com/about" }],
  ["cat", "$pageview", "03-06T18:00", null, "/", "s-cat-2"],
  ["cat", "signup", "03-06T18:10", "Safari", "/signup", "s-cat-2"],
  ["cat", "$pageleave", "03-06T18:11", "Safari", "/signup", "s-cat-2"],
  ["cat", "$pageview", "03-07T20:00", "Safari", "/pricing", "s-cat-3"],
  ["cat", "purchase", "03-07T20:10", "Safari", "/checkout", "s-cat-3", { amount: 15 }],
  ["dan-1", "$pageview", "03-04T22:00", "Edge", "/", "s-dan-1"],
  ["dan-1", "$pageview", "03-04T22:30", "Edge", "/pricing", "s-dan-1"],
  ["dan-1", "$pageview", "03-05T06:00", "Edge", "/", "s-dan-4"],
  ["dan-2", "$pageview", "03-06T07:00", "Chrome", "/products", "s-dan-2"],
  ["dan-2", "purchase", "03-06T07:10", "Chrome", "/checkout", "s-dan-2", { amount: 45.5 }],
  ["dan-2", "purchase", "03-06T07:12", "Chrome", "/checkout", "s-dan-2", { amount: 200 }],
  ["dan-2", "$pageview", "03-07T09:00", "Chrome", "/pricing", "s-dan-3"],
  ["dan-2", "signup", "03-07T09:05", "Chrome", "/signup", "s-dan-3"],
  ["dan-2", "$pageleave", "03-07T09:10", "Chrome", "/signup", "s-dan-3"],
];

const companyOf = (distinctId: string): string | undefined => (distinctId.startsWith("ann") || distinctId.startsWith("dan") ? "acme" : distinctId === "bob" ? "globex" : undefined);

function eventOf([distinctId, event, time, browser, path, session, extra]: Row, i: number, projectId = "1", company = companyOf(distinctId)) {
  const properties: Record<string, unknown> = {};
  if (browser !== undefined) properties.$browser = browser;
  if (path !== null) {
    properties.$pathname = path;
    properties.$current_url = `https://shop.example.com${path}`;
  }
  if (session !== null) properties.$session_id = session;
  if (company) properties.$groups = { company };
  Object.assign(properties, extra);
  return { project_id: projectId, uuid: `0190e000-0000-7000-8000-${String(i + 1).padStart(12, "0")}`, event, distinct_id: distinctId, timestamp: `2024-${time}:00Z`, properties };
}

const otherRows: Row[] = [
  ["eve", "$pageview", "03-05T10:00", "Chrome", "/", "s-eve-1"],
  ["eve", "purchase", "03-05T10:05", "Chrome", "/checkout", "s-eve-1", { amount: 999 }],
  ["bob", "$pageview", "03-06T10:00", "Chrome", "/", "s-bob-1"],
  ["bob", "purchase", "03-06T10:05", "Chrome", "/checkout", "s-bob-1", { amount: 999 }],
];

/** A fresh copy of the corpus's fixture document; `timezone` is project 1's (the rows are the same instants). */
export function corpusFixture(timezone = "UTC"): FixtureDocument {
  return {
    version: 1,
    now: CORPUS_NOW,
    users: [{ id: 1, email: "ada@example.com", first_name: "Ada", personal_api_keys: ["phx_test_owner_key_0001"] }],
    projects: [
      { id: "1", name: "Shop", timezone, group_types: [{ group_type_index: 0, group_type: "company", name_singular: "company", name_plural: "companies" }] },
      { id: "2", name: "Other", timezone: "UTC", group_types: [{ group_type_index: 0, group_type: "company" }] },
    ],
    persons: [
      { project_id: "1", uuid: PERSON.ann, distinct_ids: ["ann-anon", "ann@example.com"], properties: { email: "ann@example.com", plan: "pro" }, created_at: "2024-02-01T00:00:00Z" },
      { project_id: "1", uuid: PERSON.bob, distinct_ids: ["bob"], properties: { email: "bob@example.com", plan: "free" }, created_at: "2024-02-15T00:00:00Z" },
      { project_id: "1", uuid: PERSON.cat, distinct_ids: ["cat"], properties: { email: "cat@example.com" }, created_at: "2024-03-01T00:00:00Z" },
      { project_id: "1", uuid: PERSON.dan, distinct_ids: ["dan-1", "dan-2"], properties: { plan: "pro" }, created_at: "2024-03-02T00:00:00Z" },
      { project_id: "2", uuid: PERSON.eve, distinct_ids: ["eve", "bob"], properties: { email: "eve@other.com", plan: "secret" }, created_at: "2024-01-01T00:00:00Z" },
    ],
    groups: [
      { project_id: "1", group_type_index: 0, group_key: "acme", properties: { name: "Acme", employees: 500 }, created_at: "2024-01-10T00:00:00Z" },
      { project_id: "1", group_type_index: 0, group_key: "globex", properties: { name: "Globex", employees: 40 }, created_at: "2024-01-20T00:00:00Z" },
      { project_id: "2", group_type_index: 0, group_key: "evilcorp", properties: { name: "Evil Corp", employees: 9999 }, created_at: "2024-01-01T00:00:00Z" },
    ],
    events: [...rows.map((r, i) => eventOf(r, i)), ...otherRows.map((r, i) => eventOf(r, 100 + i, "2", "evilcorp"))],
  } as FixtureDocument;
}
