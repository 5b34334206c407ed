import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createApp, type AppHandler } from "./app.ts";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { compilePlanDocument, type TrackingPlan } from "./control/tracking-plan.ts";
import { createClock, type Clock } from "./core/clock.ts";
import { isoUtc } from "./core/iso-time.ts";
import type { Config } from "./config.ts";
import { scenarioNames } from "./control/scenarios.ts";
import { defaultApiKey } from "./fixtures/generate.ts";
import { generatedState } from "./fixtures/generated-state.ts";
import { answerClientErrors } from "./http/client-errors.ts";
import { applySocketTimeouts } from "./http/socket-timeouts.ts";
import { generationRefusal } from "./memory-budget.ts";
import { createLogger, type Logger } from "./core/logger.ts";
import { readFixtureFile, stateFromFixtures } from "./store/load-fixtures.ts";
import { readState, storeFiles, type StoreFiles } from "./store/persistence.ts";
import { describeOffset, offsetToNow, shiftState } from "./store/shift-times.ts";
import type { State } from "./store/schema.ts";
import { createStore, type Store } from "./store/store.ts";
import type { Control } from "./control/service.ts";
import type { FixtureDocument } from "./store/fixture-document.ts";
import { assertFixtureDocument } from "./store/load-fixtures.ts";

export interface StartedServer {
  url: string;
  server: Server;
  store: Store;
  clock: Clock;
  /** Where the start-up state came from. */
  source: "data-file" | "fixtures-file" | "generated" | "fixtures-document";
  /** Reset, fixture loading, clock and request log: the control API as functions. */
  control: Control;
  close(): Promise<void>;
}

/**
 * A start-up that cannot go on, said in one line: what, which file or port, what to do. The command line
 * prints the message alone (the stack only at --log-level debug); embedders get it as the rejection.
 */
export class StartupError extends Error {
  /** Printed and inspected by name (`StartupError: …`), not as a plain "Error". */
  override name = "StartupError";
}

interface Initial {
  state: State;
  clock: Clock;
  source: StartedServer["source"];
  /** Whether the state must be written to the data file at start (it did not come from it, or it moved). */
  write: boolean;
  /** The one line that says why a stored state was replaced or kept, when a fixture decided it. */
  note?: string;
}

/** The clock a fixture document asks for, unless --now overrides it or --shift-to-now puts its data at the real now. */
function fixtureClock(config: Config, doc: FixtureDocument): Clock {
  const fixtureNow = doc.now && config.shiftToNow !== "always" ? Date.parse(doc.now) : null;
  return createClock(config.now ?? fixtureNow);
}

async function fixtureFile(file: string): Promise<FixtureDocument> {
  try {
    return await readFixtureFile(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new StartupError(`fixture file ${file} does not exist: check the path (a relative path is read from the working directory, ${process.cwd()}) or name a bundled scenario (--fixtures NAME): ${scenarioNames().join(", ")}`);
    if (code === "EACCES" || code === "EISDIR") throw new StartupError(`fixture file ${file} cannot be read (${code}): pass a readable JSON file`);
    throw e;
  }
}

/** A `--tracking-plan` file, checked and compiled before the server listens. */
async function trackingPlanFile(file: string): Promise<TrackingPlan> {
  let plan: unknown;
  try {
    plan = JSON.parse(await readFile(file, "utf8"));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new StartupError(`tracking plan ${file} ${code === "ENOENT" ? "does not exist" : `cannot be read as JSON (${code ?? (e as Error).message})`}`);
  }
  const compiled = compilePlanDocument(plan);
  if (typeof compiled === "string") throw new StartupError(`tracking plan ${file}: ${compiled}`);
  return compiled.plan;
}

/** A fixture's `tracking_plan` (kept in the state), checked as the control API checks one; --tracking-plan overrides it. */
function storedTrackingPlan(state: State): TrackingPlan | null {
  if (!state.meta.tracking_plan) return null;
  const compiled = compilePlanDocument(state.meta.tracking_plan);
  if (typeof compiled === "string") throw new StartupError(`the fixture's tracking_plan: ${compiled}`);
  return compiled.plan;
}

/** Refuses to replace a stored state that did not come from a fixture unless told to: the data file is someone's work. */
function refuseToReplace(files: StoreFiles, what: string): never {
  throw new StartupError(`${files.meta} already holds a stored state and ${what} would replace it: pass --reset-data to replace it, --in-memory to leave it alone, or --data with another path`);
}

/** A fixture's identity: the hash of its parsed content (reformatting the file changes nothing). */
const fixtureDigest = (doc: FixtureDocument) => createHash("sha256").update(JSON.stringify(doc)).digest("hex");

/** The fixture hash a stored state remembers; undefined when it has none (or the file is not ours: readState says why). */
async function storedFixtureDigest(files: StoreFiles): Promise<string | undefined> {
  try {
    const meta = JSON.parse(await readFile(files.meta, "utf8")) as { fixture_source?: { sha256?: unknown } };
    const sha = meta?.fixture_source?.sha256;
    return typeof sha === "string" ? sha : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A stored state follows the fixture it was written from: kept while the fixture is unchanged (or with --keep-data),
 * reloaded once it changed. A stored state from anywhere else is replaced only with --reset-data.
 */
async function storedForFixture(config: Config, files: StoreFiles | null, doc: FixtureDocument, what: string): Promise<{ state: State | null; note?: string }> {
  if (!files || config.resetData || !existsSync(files.meta)) return { state: null };
  const stored = await storedFixtureDigest(files);
  if (stored === undefined) refuseToReplace(files, what);
  if (stored === fixtureDigest(doc)) return { state: await readState(files) };
  if (config.keepData) return { state: await readState(files), note: `${what} changed since ${files.meta} was written from it: keeping the stored state (--keep-data)` };
  return { state: null, note: `${what} changed since ${files.meta} was written from it: reloading it (pass --keep-data to keep the stored state)` };
}

/** A data file written from a fixture, started without one: it keeps serving the fixture's state, which a newcomer does not expect. */
const leftFixtureNote = (stored: State, files: StoreFiles): string | undefined =>
  stored.meta.origin === "fixtures" ? `${files.meta} holds the state a fixture wrote: serving it (pass --reset-data for the default dataset)` : undefined;

/** The start-up state and clock: a fixture if named, else the data file if it exists (and --reset-data is not given), else the generated dataset. */
async function initialState(config: Config, files: StoreFiles | null, document?: FixtureDocument): Promise<Initial> {
  if (document || config.fixturesFile) {
    const what = document ? "the fixture document" : `--fixtures ${config.fixturesFile}`;
    const doc = document ?? (await fixtureFile(config.fixturesFile!));
    assertFixtureDocument(doc);
    const clock = fixtureClock(config, doc);
    const { state: stored, note } = await storedForFixture(config, files, doc, what);
    if (stored) return { state: stored, clock, source: "data-file", write: false, note };
    const state = stateFromFixtures(doc, clock.now());
    state.meta.origin = "fixtures";
    state.meta.fixture_source = { sha256: fixtureDigest(doc) };
    return { state, clock, source: document ? "fixtures-document" : "fixtures-file", write: true, note };
  }
  const stored = files && !config.resetData ? await readState(files) : null;
  if (stored) return { state: stored, clock: createClock(config.now), source: "data-file", write: false, note: leftFixtureNote(stored, files!) };
  const clock = createClock(config.now);
  const refusal = config.events === null ? null : generationRefusal(config.events);
  if (refusal) throw new StartupError(refusal);
  const state = generatedState({ seed: config.seed, now: new Date(clock.now()), persons: config.persons ?? undefined, events: config.events ?? undefined }, clock.now());
  state.meta.origin = "generated";
  return { state, clock, source: "generated", write: true };
}

/** The generated dataset drifts out of date by itself; an hour of drift is left alone so that quick restarts rewrite nothing. */
const AUTO_SHIFT_MIN_MS = 3_600_000;

/** Older store files carry no origin: the generated one is recognised by its user's demo key for --seed. */
function isGenerated(state: State, seed: number): boolean {
  const origin = state.meta.origin;
  if (origin) return origin === "generated";
  return state.meta.users.some((u) => u.personal_api_keys.includes(defaultApiKey(seed)));
}

/** The offset to apply at start (0: none), following --shift-to-now / --no-shift / the default. */
function shiftFor(config: Config, state: State, now: number): number {
  if (config.shiftToNow === "never") return 0;
  const offset = offsetToNow(state, now);
  if (config.shiftToNow === "always") return offset;
  return isGenerated(state, config.seed) && Math.abs(offset) >= AUTO_SHIFT_MIN_MS ? offset : 0;
}

/** Says loudly what happens to the data file: it is written, or replaced. */
function announceWrite(logger: Logger, config: Config, source: StartedServer["source"], files: StoreFiles): void {
  const what = source === "generated" ? `the generated dataset (seed ${config.seed})` : source === "fixtures-file" ? `the fixture ${config.fixturesFile}` : "the fixture document";
  const verb = config.resetData && existsSync(files.meta) ? "REPLACING the stored state in" : "writing";
  logger.info(`${verb} ${files.meta} (and its sibling files) with ${what}`);
}

/** Listens, or says in one line why it cannot (the port is taken, not allowed, or the host is not here). */
function listen(app: AppHandler, config: Config): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(listenError(err, config)) : resolve(s)));
  });
}

function listenError(err: NodeJS.ErrnoException, config: Config): Error {
  const where = `${config.host}:${config.port}`;
  if (err.code === "EADDRINUSE") return new StartupError(`port ${config.port} on ${config.host} is already in use: stop the other server or pass --port with another port (--port 0 picks a free one)`);
  if (err.code === "EACCES") return new StartupError(`not allowed to listen on ${where}: pass --port 1024 or above`);
  if (err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND") return new StartupError(`--host ${config.host} is not an address of this machine: pass --host 127.0.0.1 or 0.0.0.0`);
  return err;
}

/** Loads the state, opens the store and listens. Errors (bad fixture file, unreadable store) reject before listening. */
export async function startServer(config: Config, logger: Logger = createLogger(config.logLevel), document?: FixtureDocument): Promise<StartedServer> {
  const files = config.dataFile ? storeFiles(config.dataFile) : null;
  const { state, clock, source, write, note } = await initialState(config, files, document);
  const offset = shiftFor(config, state, clock.now());
  if (offset !== 0) {
    shiftState(state, offset);
    logger.info(`shifted every timestamp by ${describeOffset(offset)} so that the newest event is now (${isoUtc(clock.now())}); --no-shift keeps them`);
  }
  const persist = files !== null && (write || offset !== 0);
  if (note) logger.info(note);
  else if (files && write) announceWrite(logger, config, source, files);
  const store = await createStore(state, clock, files, { persist, deletionSchedule: config.deletionSchedule });
  const { app, control, close: closeApp } = await createApp({ store, clock, config, logger });
  try {
    const plan = config.trackingPlanFile ? await trackingPlanFile(config.trackingPlanFile) : storedTrackingPlan(state);
    if (plan) control.observation.plan.set(plan);
  } catch (e) {
    await closeApp();
    throw e;
  }
  const server = await listen(app, config).catch((e) => {
    closeApp();
    throw e;
  });
  answerClientErrors(server);
  applySocketTimeouts(server);
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    server,
    store,
    clock,
    source,
    control,
    /**
     * Stops accepting connections and lets in-flight requests finish. Every request is answered only after
     * its write completed, so nothing is left to flush (rewriting a 1M-event file at each stop took seconds).
     */
    close: async () => {
      await closeApp();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
