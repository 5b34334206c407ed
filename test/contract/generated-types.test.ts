import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("generated types", () => {
  it("src/generated/openapi.ts is what `npm run generate` makes of openapi/ now", () => {
    const run = () =>
      execFileSync(process.execPath, ["node_modules/openapi-typescript/bin/cli.js", "openapi/openapi.yaml", "-o", "src/generated/openapi.ts", "--default-non-nullable", "false", "--check"], {
        cwd: root,
        stdio: "pipe",
      });
    expect(run).not.toThrow();
  });
});
