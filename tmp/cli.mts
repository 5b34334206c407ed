import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { OWNER_KEY, scenario, startTestServer } from "/work/main/test/support/server.ts";
const s = await startTestServer(scenario("basic"));
const env = { PATH: process.env.PATH, HOME: "/tmp", POSTHOG_CLI_API_KEY: OWNER_KEY, POSTHOG_CLI_PROJECT_ID: "1", POSTHOG_CLI_HOST: s.base, NODE_OPTIONS: "--require /work/main/tmp/fetchlog.cjs" };
try {
  const r = await promisify(execFile)(process.execPath, ["/work/main/node_modules/@posthog/cli/lib/posthog-api-cli.mjs", "call", "--json", "insights-list", JSON.stringify({tags: "[\"web\"]", created_date_from: "-7d", user: true, include_dashboards: true})], { env });
  console.log(r.stdout.slice(0, 300));
} catch (e) { console.log("ERR", (e as any).stderr); }
console.log(JSON.stringify((await (await fetch(s.base + "/_mock/requests/")).json()).results?.map((r: any) => [r.method, r.path, r.status]) ?? null));
await s.close();
