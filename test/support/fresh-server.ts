import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { createApp } from "../../src/app.ts";
import { createClock } from "../../src/core/clock.ts";
import type { FixtureDocument } from "../../src/store/fixture-document.ts";
import { createLogger } from "../../src/core/logger.ts";
import { assertFixtureDocument, stateFromFixtures } from "../../src/store/load-fixtures.ts";
import { createStore } from "../../src/store/store.ts";
import { testConfig } from "./server.ts";

/**
 * The app in memory over a fixture document, frozen at its `now`, behind one middleware that resets the state
 * (control API `reset`) before every request. Tools that send independent requests in an order of their own
 * (Specmatic) then always meet the scenario as written: a DELETE does not break the next test's GET.
 */
export async function startFreshPerRequestServer(doc: FixtureDocument) {
  assertFixtureDocument(doc);
  const clock = createClock(doc.now ? Date.parse(doc.now) : null);
  const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
  const { app, control, close: closeApp } = await createApp({ store, clock, config: testConfig(), logger: createLogger("silent") });
  let requests = 0;
  const outer = express();
  outer.disable("x-powered-by");
  outer.use(async (_req, _res, next) => {
    requests++;
    try {
      await control.reset();
      next();
    } catch (e) {
      next(e);
    }
  });
  outer.use(app);
  const server: Server = outer.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: async () => {
      await closeApp();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
