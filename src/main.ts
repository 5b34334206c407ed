import { ConfigError, invokedAs, parseConfig, usage, type Config } from "./config.ts";
import { createLogger } from "./core/logger.ts";
import { StoreFileError } from "./store/ndjson-file.ts";
import { FixtureError } from "./store/load-fixtures.ts";
import { startServer, StartupError } from "./server.ts";
import type { ProjectRecord } from "./store/schema.ts";

/**
 * A start-up failure as one line (what, which file or port, what to do); the stack only at --log-level debug.
 * Errors we do not know are still one line, pointing at debug for the stack.
 */
function startupFailure(e: unknown, config: Config): string {
  const debug = config.logLevel === "debug";
  const stack = debug && e instanceof Error && e.stack ? `\n${e.stack}` : "";
  if (e instanceof FixtureError) return `fixture file ${config.fixturesFile}: ${e.message} (fix the file; its format is fixtures/fixtures.schema.json)${stack}`;
  if (e instanceof StoreFileError) return `${e.message} (the file was left as it is: move it away, pass --reset-data to replace it, or --data with another path)${stack}`;
  if (e instanceof StartupError || e instanceof ConfigError) return `${e.message}${stack}`;
  const message = e instanceof Error ? e.message : String(e);
  return `analytics-mock could not start: ${message}${stack || " (run with --log-level debug for the stack trace)"}`;
}

/**
 * The projects, one line each: id (what the API paths take), name, and the project API token client
 * libraries send. Tokens are printed whole: they are not secrets (the real service puts them in the
 * snippet pasted into web pages), unlike personal API keys.
 */
const projectLines = (projects: readonly ProjectRecord[]): string[] => {
  const width = Math.max(0, ...projects.map((p) => p.id.length + p.name.length + 3));
  return projects.map((p) => `    ${`${p.id} "${p.name}"`.padEnd(width)}  token ${p.api_token}`);
};

async function main(): Promise<number> {
  const help = usage(invokedAs());
  let config;
  try {
    config = parseConfig(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${help}`);
    return 2;
  }
  if (!config) {
    process.stdout.write(help);
    return 0;
  }
  const logger = createLogger(config.logLevel);
  let started;
  try {
    started = await startServer(config, logger);
  } catch (e) {
    process.stderr.write(`${startupFailure(e, config)}\n`);
    return 1;
  }
  const user = started.store.users.get(1) ?? started.store.snapshot().meta.users[0];
  const key = user?.personal_api_keys[0];
  const project = user ? started.store.projects.forUser(user.id)[0] : undefined;
  // Shown in full whatever its source, as the README promises ("the printed key"): a fixture's key is the user's own,
  // in their own file, and a masked one left them nothing to paste (issue 41).
  const shownKey = key ? (started.source === "fixtures-file" ? `${key} (from ${config.fixturesFile})` : key) : "(no user)";
  logger.info(
    [
      `analytics-mock listening on ${started.url}`,
      `  data:    ${config.dataFile ?? "in memory"} (${started.source})`,
      `  clock:   ${started.clock.isFrozen() ? `frozen at ${new Date(started.clock.now()).toISOString()}` : "wall clock"}`,
      `  API key: ${shownKey}`,
      `  inspect: ${started.url}/_mock/ui/ (live events, requests, flags, charts)`,
      `  projects (id, name, project API token):`,
      ...projectLines(started.store.snapshot().meta.projects),
      `  try:     curl -H "Authorization: Bearer ${key ?? "<key>"}" ${started.url}/api/projects/${project ? `${project.id}/insights/` : ""}`,
    ].join("\n"),
  );
  const shutdown = (signal: string) => {
    logger.info(`${signal}: finishing in-flight requests and flushing the store`);
    started.close().then(
      () => process.exit(0),
      (e) => {
        logger.error("shutdown", e);
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e) => {
    process.stderr.write(`fatal: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
