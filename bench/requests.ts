/** The requests the bench sends: the insight reads, the default-dataset mix and the analyses. */
import type { Endpoint } from "./harness.ts";

const P = "/api/projects/1";
const q = (o: Record<string, string>) => new URLSearchParams(o).toString();
const INSIGHT_BODY = { name: "bench insight", filters: { insight: "TRENDS", events: [{ id: "$pageview", math: "total" }], date_from: "-7d", interval: "day" } };
let patchCounter = 0;

export const READS = {
  list: { name: "GET /insights/?limit=100", method: "GET", path: `${P}/insights/?limit=100`, expect: 200 },
  detail: { name: "GET /insights/:id/", method: "GET", path: `${P}/insights/1/`, expect: 200 },
} satisfies Record<string, Endpoint>;

export const DEFAULT_MIX: Endpoint[] = [
  { name: "GET /persons/ (property filter)", method: "GET", path: `${P}/persons/?${q({ properties: JSON.stringify([{ key: "$browser", value: "Chrome", operator: "exact", type: "person" }]) })}`, expect: 200 },
  { name: "GET /events/ (event + property filter, limit 100)", method: "GET", path: `${P}/events/?${q({ event: "$pageview", properties: JSON.stringify([{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }]), limit: "100" })}`, expect: 200 },
  { name: "GET /insights/?limit=abc (400)", method: "GET", path: `${P}/insights/?limit=abc`, expect: 400 },
  { name: "GET /insights/999999/ (404)", method: "GET", path: `${P}/insights/999999/`, expect: 404 },
  { name: "POST /insights/", method: "POST", path: `${P}/insights/`, body: INSIGHT_BODY, expect: 201 },
  { name: "PATCH /insights/:id/", method: "PATCH", path: `${P}/insights/1/`, bodyPerRequest: () => ({ name: `bench patch ${patchCounter++}` }), expect: 200 },
];

const last30 = { date_from: "-30d", interval: "day" };
export const ANALYSES = {
  "trend total": { insight: "TRENDS", events: [{ id: "$pageview", math: "total" }], ...last30 },
  "trend dau": { insight: "TRENDS", events: [{ id: "$pageview", math: "dau" }], ...last30 },
  "trend $browser breakdown": { insight: "TRENDS", events: [{ id: "$pageview", math: "total" }], breakdown: "$browser", breakdown_type: "event", ...last30 },
  "funnel 3 steps": {
    insight: "FUNNELS",
    events: [
      { id: "$pageview", type: "events", order: 0 },
      { id: "signed_up", type: "events", order: 1 },
      { id: "purchase", type: "events", order: 2 },
    ],
    date_from: "-30d",
  },
} as const;
export type AnalysisName = keyof typeof ANALYSES;
export const analysisEndpoint = (name: AnalysisName, refresh: boolean): Endpoint => ({
  name: `POST /insights/${name.startsWith("funnel") ? "funnel" : "trend"}/ ${name}${refresh ? " (refresh=true)" : " (cached)"}`,
  method: "POST",
  path: `${P}/insights/${name.startsWith("funnel") ? "funnel" : "trend"}/${refresh ? "?refresh=true" : ""}`,
  body: ANALYSES[name],
  expect: 200,
});
