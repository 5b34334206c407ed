/**
 * Feature flag evaluation without HTTP: `npx tsx bench/flags-eval.ts [--persons N] [--flags N] [--requests N]`.
 * The server-side part of `bench/flags.ts` (same dataset and flags): for each request another known person with a
 * group, evaluated and answered in the `/flags?v=2` shape as JSON text, timed in this process. Prints µs per request.
 */
import { parseArgs } from "node:util";
import { createClock } from "../src/core/clock.ts";
import { ForcedFlags } from "../src/services/forced-flags.ts";
import { flagsAnswerJson, remoteConfigInputs } from "../src/capture/remote-config.ts";
import { generateFixtures } from "../src/fixtures/generate.ts";
import { evaluateForRequest } from "../src/services/feature-flags.ts";
import { stateFromFixtures } from "../src/store/load-fixtures.ts";
import { createStore } from "../src/store/store.ts";
import { derivedProjectToken } from "../src/util/ids.ts";
import { benchFlags } from "./flag-kinds.ts";

const { values: args } = parseArgs({ options: { persons: { type: "string" }, flags: { type: "string" }, requests: { type: "string" } } });
const PERSONS = Number(args.persons ?? 10_000);
const REQUESTS = Number(args.requests ?? 20_000);
const NOW = new Date("2025-06-01T00:00:00Z");

const doc = generateFixtures({ seed: 42, now: NOW, persons: PERSONS, events: PERSONS * 5 });
doc.feature_flags = benchFlags(Number(args.flags ?? 50));
const clock = createClock(NOW.getTime());
const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
const deps = { store, clock, forced: new ForcedFlags() };
const token = derivedProjectToken("1");
const project = store.projects.byToken(token)!;
const people = doc.persons!.filter((p) => p.project_id === "1");
const companies = doc.groups!.filter((g) => g.project_id === "1" && g.group_type_index === 0).map((g) => g.group_key);
const requests = Array.from({ length: 2000 }, (_, i) => ({
  distinctId: people[i % people.length]!.distinct_ids[0]!,
  groups: { company: companies[(i + 1) % companies.length]! },
  personProperties: {},
  groupProperties: {},
}));

async function run(n: number) {
  let bytes = 0;
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const values = await evaluateForRequest(deps, project, requests[i % requests.length]!);
    const config = remoteConfigInputs(deps, project);
    bytes += flagsAnswerJson(2, { config, values }).length;
  }
  return { us: ((performance.now() - started) * 1000) / n, bytes: bytes / n };
}

await run(2000);
const { us, bytes } = await run(REQUESTS);
process.stdout.write(`/flags?v=2 evaluated and serialised in-process: ${us.toFixed(1)} µs per request (${bytes.toFixed(0)} bytes), ${PERSONS} persons\n`);
