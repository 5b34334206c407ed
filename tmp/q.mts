import { OWNER_KEY, scenario, startTestServer } from "/work/main/test/support/server.ts";
const s = await startTestServer(scenario("basic"));
const r = await fetch(s.base + "/api/projects/1/insights/?tags=%5B%22web%22%5D&created_date_from=-7d&user=true&include_dashboards=true", { headers: { authorization: `Bearer ${OWNER_KEY}` } }).catch((e) => e);
console.log(r instanceof Error ? [r.message, r.cause] : [r.status, (await r.text()).slice(0, 300)]);
await s.close();
