import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer } from "../../src/server.ts";
import { storeFiles, type StoreFiles } from "../../src/store/persistence.ts";
import { BASIC_FIXTURE, runToExit } from "../support/child-server.ts";
import { OWNER_KEY } from "../support/server.ts";

/** A store file cut or damaged is refused at start with its name, and nothing on disk changes. */
const tmp = () => mkdtempSync(path.join(tmpdir(), "analytics-mock-corrupt-"));
const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));

let pristine: string;
beforeAll(async () => {
  pristine = tmp();
  const running = await start(["--data", path.join(pristine, "db.json"), "--fixtures", BASIC_FIXTURE]);
  const headers = { authorization: `Bearer ${OWNER_KEY}`, "content-type": "application/json" };
  for (let i = 0; i < 3; i++) await fetch(`${running.url}/api/projects/1/insights/`, { method: "POST", headers, body: JSON.stringify({ name: `kept ${i}` }) });
  await fetch(`${running.url}/api/projects/1/persons/1/`, { method: "PATCH", headers, body: JSON.stringify({ properties: { plan: "team" } }) });
  await running.close();
});

const KINDS = ["meta", "persons", "events", "activity"] as const;

/** A copy of the pristine store with one file damaged; returns the files and the bytes of the whole directory. */
function damaged(kind: (typeof KINDS)[number], damage: (bytes: Buffer) => Buffer): { files: StoreFiles; before: Map<string, Buffer> } {
  const dir = tmp();
  cpSync(pristine, dir, { recursive: true });
  const files = storeFiles(path.join(dir, "db.json"));
  writeFileSync(files[kind], damage(readFileSync(files[kind])));
  return { files, before: snapshotDir(dir) };
}

function snapshotDir(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).map((f) => [f, readFileSync(path.join(dir, f))]));
}

/** Cut in the middle of a record: the cut never falls right after a line end. */
const truncate = (bytes: Buffer) => {
  let at = Math.floor(bytes.length / 2);
  while (bytes[at - 1] === 0x0a || bytes[at] === 0x0a) at++;
  return bytes.subarray(0, at);
};
const DAMAGES: Record<string, (bytes: Buffer) => Buffer> = {
  truncated: truncate,
  "cut to one byte": (bytes) => bytes.subarray(0, 1),
  "garbage in the middle": (bytes) => Buffer.concat([bytes.subarray(0, 10), Buffer.from("\u0000garbage{"), bytes.subarray(10)]),
  "a record that is not JSON": (bytes) => Buffer.concat([bytes, Buffer.from("{not json}\n")]),
};

describe("a corrupt or truncated store file at start-up", () => {
  for (const kind of KINDS) {
    for (const [name, damage] of Object.entries(DAMAGES)) {
      it(`${kind}: ${name} is refused, naming the file, and left as it was`, async () => {
        const { files, before } = damaged(kind, damage);
        await expect(start(["--data", files.meta])).rejects.toThrow(files[kind]);
        expect(snapshotDir(path.dirname(files.meta))).toEqual(before);
      });
    }

    it(`${kind}: the command line says which file and exits 1`, { timeout: 60_000 }, async () => {
      const { files, before } = damaged(kind, truncate);
      const { code, output } = await runToExit(["--data", files.meta]);
      expect(code).toBe(1);
      expect(output).toContain(`store file ${files[kind]} is unreadable`);
      expect(output).toContain("left as it is");
      expect(snapshotDir(path.dirname(files.meta))).toEqual(before);
    });
  }

  for (const kind of ["persons", "events"] as const) {
    it(`a missing ${kind} file beside the main file is refused, not rebuilt`, async () => {
      const dir = tmp();
      cpSync(pristine, dir, { recursive: true });
      const files = storeFiles(path.join(dir, "db.json"));
      rmSync(files[kind]);
      const before = snapshotDir(dir);
      await expect(start(["--data", files.meta])).rejects.toThrow(files[kind]);
      expect(snapshotDir(dir)).toEqual(before);
    });
  }
});
