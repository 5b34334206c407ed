import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { createApp } from "./app.ts";
import { createClock, type Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { generateFixtures } from "./fixtures/generate.ts";
import { answerClientErrors } from "./http/client-errors.ts";
import { createLogger, type Logger } from "./logger.ts";
import { readFixtureFile, stateFromFixtures } from "./store/load-fixtures.ts";
import { readState, storeFiles } from "./store/persistence.ts";
import type { State } from "./store/schema.ts";
import { createStore, type Store } from "./store/store.ts";
import type { Control } from "./control/service.ts";
import type { FixtureDocument } from "./fixtures/fixture-document.ts";
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

/** The start-up state and clock: a fixture file if named, else the data file if it exists, else the generated dataset. */
async function initialState(config: Config, document?: FixtureDocument): Promise<{ state: State; clock: Clock; source: StartedServer["source"] }> {
  const files = config.dataFile ? storeFiles(config.dataFile) : null;
  if (document) {
    assertFixtureDocument(document);
    const clock = createClock(config.now ?? (document.now ? Date.parse(document.now) : null));
    return { state: stateFromFixtures(document, clock.now()), clock, source: "fixtures-document" };
  }
  if (config.fixturesFile) {
    const doc = await readFixtureFile(config.fixturesFile);
    const clock = createClock(config.now ?? (doc.now ? Date.parse(doc.now) : null));
    return { state: stateFromFixtures(doc, clock.now()), clock, source: "fixtures-file" };
  }
  const stored = files ? await readState(files) : null;
  if (stored) return { state: stored, clock: createClock(config.now), source: "data-file" };
  const clock = createClock(config.now);
  const doc = generateFixtures({ seed: config.seed, now: new Date(clock.now()), persons: config.persons ?? undefined, events: config.events ?? undefined });
  const { now: _generatedAt, ...withoutNow } = doc;
  return { state: stateFromFixtures(withoutNow, clock.now()), clock, source: "generated" };
}

/** Loads the state, opens the store and listens. Errors (bad fixture file, unreadable store) reject before listening. */
export async function startServer(config: Config, logger: Logger = createLogger(config.logLevel), document?: FixtureDocument): Promise<StartedServer> {
  const { state, clock, source } = await initialState(config, document);
  const files = config.dataFile ? storeFiles(config.dataFile) : null;
  const store = await createStore(state, clock, files, { persist: source !== "data-file" && files !== null, deletionSchedule: config.deletionSchedule });
  const { app, control, close: closeApp } = await createApp({ store, clock, config, logger });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  answerClientErrors(server);
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
      closeApp();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
