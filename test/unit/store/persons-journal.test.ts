import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PersonsJournal, replayPersonsJournal } from "../../../src/store/persons-journal.ts";
import { StoreFileError } from "../../../src/store/ndjson-file.ts";
import type { PersonRecord } from "../../../src/store/schema.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function journalFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "persons-journal-"));
  dirs.push(dir);
  return path.join(dir, "db.persons.journal.ndjson");
}

const person = (id: number, properties: PersonRecord["properties"] = {}): PersonRecord => ({
  id,
  project_id: "1",
  uuid: `0190aaaa-0000-7000-8000-${String(id).padStart(12, "0")}`,
  distinct_ids: [`d${id}`],
  properties,
  created_at: "2024-03-05T12:00:00.000Z",
  is_identified: false,
});
const noCompaction = () => Promise.resolve();
const lines = (file: string) => readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);

describe("the persons journal", () => {
  it("is replayed over the persons file: changed persons replaced, new ones added, removed ones gone", async () => {
    const file = journalFile();
    const journal = new PersonsJournal(file, noCompaction);
    await journal.record([person(1, { plan: "pro" }), person(3)], [2]);
    expect(replayPersonsJournal([person(1), person(2)], file, 0)).toEqual([person(1, { plan: "pro" }), person(3)]);
  });

  it("writes one append per turn, each person once, as it is when written", async () => {
    const file = journalFile();
    const journal = new PersonsJournal(file, noCompaction);
    const p = person(1);
    const both = [journal.record([p], []), journal.record([p, person(2)], [])];
    p.properties = { plan: "pro" };
    await Promise.all(both);
    expect(lines(file)).toEqual([
      { seq: 1, person: person(1, { plan: "pro" }) },
      { seq: 2, person: person(2) },
    ]);
  });

  it("after a full write, applies only later lines, and numbers on from the journal after a reopen", async () => {
    const file = journalFile();
    const journal = new PersonsJournal(file, noCompaction);
    await journal.record([person(1, { v: 1 })], []);
    const written = { persons: [person(1, { v: 1 })], journal_seq: journal.seq };
    journal.restart();
    await journal.record([person(1, { v: 2 })], []);
    const reopened = new PersonsJournal(file, noCompaction);
    expect(reopened.seq).toBe(2);
    expect(replayPersonsJournal(written.persons, file, written.journal_seq)).toEqual([person(1, { v: 2 })]);
    // Restarted with nothing after it: the base line alone keeps the number for the next start.
    reopened.restart();
    expect(lines(file)).toEqual([{ seq: 2, base: true }]);
    expect(new PersonsJournal(file, noCompaction).seq).toBe(2);
  });

  it("a crash between a full write and the restart applies nothing twice: a person deleted by that write stays deleted", async () => {
    const file = journalFile();
    const journal = new PersonsJournal(file, noCompaction);
    await journal.record([person(1), person(2)], []);
    expect(replayPersonsJournal([person(2)], file, journal.seq)).toEqual([person(2)]);
  });

  it("changes waiting when a full write lands are in it, and are not appended after it", async () => {
    const file = journalFile();
    const journal = new PersonsJournal(file, noCompaction);
    await journal.record([person(1)], []);
    const waiting = journal.record([person(2)], []);
    journal.restart();
    await waiting;
    expect(lines(file)).toEqual([{ seq: 1, base: true }]);
  });

  it("ignores a last line cut short and refuses a bad line elsewhere", () => {
    const file = journalFile();
    const good = JSON.stringify({ seq: 1, person: person(1) });
    writeFileSync(file, `${good}\n{"seq":2,"pers`);
    expect(replayPersonsJournal([], file, 0)).toEqual([person(1)]);
    writeFileSync(file, `{"seq":1,"pers\n${good}\n`);
    expect(() => replayPersonsJournal([], file, 0)).toThrow(StoreFileError);
  });

  it("asks for a full write once it grows past its limit", async () => {
    const file = journalFile();
    let compactions = 0;
    const journal = new PersonsJournal(file, async () => void compactions++);
    const big = { text: "x".repeat(1024 * 1024) };
    for (let i = 0; i < 5; i++) await journal.record([person(i, big)], []);
    expect(compactions).toBeGreaterThan(0);
  });
});
