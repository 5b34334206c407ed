import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config.ts";
import { StartupError } from "../../src/server.ts";
import { FixtureError } from "../../src/store/fixture-problems.ts";

// An embedder printing a rejected startServer() sees which kind of failure it was (issue 41: both read "Error").
describe("start-up errors print with their names", () => {
  it.each([
    ["StartupError", new StartupError("port 8000 on 127.0.0.1 is already in use")],
    ["ConfigError", new ConfigError("--port must be an integer")],
    ["FixtureError", new FixtureError([{ pointer: "/events/3/timestamp", reason: "must be a date-time" }])],
  ])("%s", (name, error) => {
    expect(String(error).startsWith(`${name}: `)).toBe(true);
    expect(inspect(error).startsWith(`${name}: `)).toBe(true);
    expect(error).toBeInstanceOf(Error);
  });
});
