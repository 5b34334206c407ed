#!/usr/bin/env node
// Builds dist/ (the bundles and the declaration files) when it is missing or older than src/: run by
// `prepare` and `postinstall`, so that the package works however npm installs it.
//  - a checkout: its own `npm install` runs both; the second finds dist/ fresh. npm links a checkout into
//    another project without installing the checkout's dependencies: without its own install it fails here,
//    saying so.
//  - `--install-links` and git URLs: npm runs `prepare` in the source folder before packing it; a fresh
//    clone has no node_modules there yet, so the build is left to `postinstall` in the installed copy,
//    where npm has installed the build tools (dependencies, not devDependencies, for that reason).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const resolvable = (name) => {
  try {
    createRequire(path.join(root, "package.json")).resolve(name);
    return true;
  } catch {
    return false;
  }
};
// The kit's declarations need the user's @playwright/test (an optional peer): without it, only the server's.
const withKit = resolvable("@playwright/test");
const outputs = ["dist/index.mjs", "dist/main.mjs", "dist/playwright.mjs", "dist/scan-worker.mjs", "dist/types/index.d.ts", ...(withKit ? ["dist/types/playwright/index.d.ts"] : [])];

function newestIn(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(file) : statSync(file).mtimeMs);
  }
  return newest;
}

/** Missing, or older than a source file (a packed copy's files all carry one date: fresh). */
function stale() {
  const built = outputs.map((f) => path.join(root, f));
  if (!built.every((f) => existsSync(f))) return true;
  return Math.min(...built.map((f) => statSync(f).mtimeMs)) < newestIn(path.join(root, "src"));
}

function run(script) {
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
  const result = spawnSync(npm[0], [...npm.slice(1), "run", script, "--silent"], { cwd: root, stdio: "inherit", shell: npm.length === 1 });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!stale()) process.exit(0);
if (!resolvable("esbuild") || !resolvable("typescript")) {
  if (process.env.npm_lifecycle_event === "prepare") {
    console.log("analytics-mock: the build tools are not installed here yet; dist/ is built after npm installs the package (postinstall)");
    process.exit(0);
  }
  // npm links a folder outside the project without installing its dependencies: a clone needs its own install.
  const linked = !root.split(path.sep).includes("node_modules");
  console.error(
    linked
      ? `analytics-mock: ${root} has no dependencies installed: run \`npm install\` there first, or install it with --install-links (a copy, whose dependencies npm installs)`
      : "analytics-mock: cannot build dist/: esbuild and typescript are not installed (install the package's dependencies, then run `npm rebuild analytics-mock`)",
  );
  process.exit(1);
}
run("build");
run(withKit ? "build:types" : "build:types:server");
