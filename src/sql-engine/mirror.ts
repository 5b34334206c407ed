/**
 * The store mirrored into the engine's tables, current at every query (read-your-writes). The events follow the
 * store's log (src/store/log.ts) by number: each mirrored row carries its batch's number, the manifest records
 * per project the last number applied, and a sync loads the rows numbered after it, read from the table as it
 * stood at one number (`EventTable.share`), so rows captured, late or not, while a load runs are the next sync's
 * and never shift what this one reads. A project reset in the log (deletions, a replaced state, shifted times) or
 * whose group types changed is loaded again into a staging table that replaces its partition at once, so a query
 * never sees half of it. Persons, distinct ids and groups are replaced per project when their text changed.
 *
 * What is mirrored is described in `mirror.json` beside the tables: the log's history (epoch) and, per project,
 * the number applied. A restart over the same history deletes the rows of any load the manifest did not record
 * (numbered after it) and loads what the log holds after it; another history, or a number the log no longer
 * reaches, loads the project again.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import path from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { EventTable } from "../store/event-table.ts";
import type { Store } from "../store/store.ts";
import type { SqlEngine } from "./engine.ts";
import { SqlEngineError } from "../core/sql-errors.ts";
import { dropSpareChunks, encodeGroups, encodePersons, groupKeyReaders, LoadBuffer } from "./mirror/encode.ts";
import { CHANNEL_DICTIONARY } from "./mirror/channel-sql.ts";
import { ColumnEncoder } from "./mirror/encode-columns.ts";
import { EVENT_PROPERTY_COLUMNS, EVENTS_LOAD, LOG_SEQ_COLUMN, GROUPS_LOAD, MIRROR_DDL, MIRROR_OBJECTS, PDI_DICTIONARY, PDI_LOAD, PERSONS_LOAD, SCHEMA_ID, STAGED_TABLES, stageOf, teamIdOf, type LoadSpec } from "./mirror/schema.ts";

/** Events per file handed to ClickHouse: one insert of every row peaked at gigabytes. */
const FILE_ROWS = 200_000;
/**
 * Events encoded between two turns of the event loop: the REST API and capture keep answering meanwhile (larger
 * slices put capture's p99 past its target while queries kept the mirror current).
 */
const SLICE_ROWS = 2_500;
/**
 * Threads ClickHouse reads a staged file with: one, as the server encodes the next file on the other core (two
 * took more CPU for the same wall time).
 */
const LOAD_THREADS = 1;
const MATERIALIZED_KEYS = EVENT_PROPERTY_COLUMNS.map((c) => c.key);
/** The mirror's objects that are dictionaries: ClickHouse refuses `DROP TABLE` of one. */
const DICTIONARIES: ReadonlySet<string> = new Set([PDI_DICTIONARY, CHANNEL_DICTIONARY]);

interface ProjectState {
  teamId: number;
  /** The last log number whose events the mirror holds; -1: none, the project is loaded whole. */
  applied: number;
  groupTypes: string;
  persons: string;
  groups: string;
}

interface Manifest {
  schema: string;
  /** The log's history that the numbers belong to (src/store/log.ts). */
  epoch: string;
  projects: Record<string, ProjectState>;
}

export interface SyncReport {
  /** Events inserted after the numbers applied, and events of projects loaded whole. */
  appended: number;
  rebuilt: number;
  /** Projects whose persons or groups were replaced. */
  personsReplaced: number;
  groupsReplaced: number;
  /** Time spent encoding events on the server's thread (the rest of `ms` is ClickHouse, or both at once). */
  encodeMs: number;
  /** Encoding calls that took the row API because the column layout was not the one expected (0 normally). */
  encoderFallbacks: number;
  ms: number;
}

export interface MirrorOptions {
  /** Events per file handed to ClickHouse (tests make a load of a few hundred events take several files). */
  fileRows?: number;
  /** Awaited before each file is handed to ClickHouse: lets a test change the store at a known point of a load. */
  beforeLoad?: (load: { table: string; rows: number }) => Promise<void> | void;
}

const emptyProject = (projectId: string): ProjectState => ({ teamId: teamIdOf(projectId), applied: -1, groupTypes: "", persons: "", groups: "" });

export function createMirror(store: Store, engine: SqlEngine, options: MirrorOptions = {}) {
  const manifestFile = path.join(engine.folder, "mirror.json");
  const loadDir = path.join(engine.folder, "mirror-load");
  const fileRows = options.fileRows ?? FILE_ROWS;
  const log = () => store.analysisData.log();
  let manifest: Manifest | null = null;
  /** Per project, the data version and index last mirrored in this process (what skips unchanged projects). */
  const seen = new Map<string, { version: number; index: object }>();
  let syncedRevision = -1;
  let generation = -1;
  let running: Promise<void> = Promise.resolve();
  let fileSeq = 0;

  /**
   * A statement of the mirror's, on the engine process the tables were opened on: an engine that died and was
   * started again meanwhile (its next statement starts a new one) may have lost rows of a load, so the sync stops
   * and the next one opens the tables again, deleting what the manifest did not record.
   */
  async function admin(sql: string) {
    const opened = generation;
    const result = await engine.admin(sql);
    if (opened !== -1 && engine.generation() !== opened) throw new SqlEngineError("engine", "The SQL engine was restarted while the mirror was loading.");
    return result;
  }

  /**
   * Opens (or makes) the tables; after a start or an engine restart, trusts only what the manifest recorded: rows
   * of a load it never recorded are deleted, and a project whose number is of another history, or beyond what the
   * log reaches, is loaded whole.
   */
  async function openTables(): Promise<Manifest> {
    generation = -1;
    mkdirSync(loadDir, { recursive: true });
    let m = readManifest(manifestFile);
    if (!m || m.schema !== SCHEMA_ID) {
      for (const name of MIRROR_OBJECTS) await admin(DICTIONARIES.has(name) ? `DROP DICTIONARY IF EXISTS ${name}` : `DROP TABLE IF EXISTS ${name}`);
      m = { schema: SCHEMA_ID, epoch: log().epoch, projects: {} };
    }
    for (const ddl of MIRROR_DDL) await admin(ddl);
    for (const table of STAGED_TABLES) {
      await admin(`CREATE TABLE IF NOT EXISTS ${stageOf(table)} AS ${table}`);
      await admin(`TRUNCATE TABLE ${stageOf(table)}`);
    }
    const history = log();
    const sameHistory = m.epoch === history.epoch;
    m.epoch = history.epoch;
    const newest = new Map((await admin(`SELECT team_id, max(${LOG_SEQ_COLUMN}) FROM events GROUP BY team_id`)).rows.map(([t, n]) => [Number(t), Number(n)]));
    for (const p of Object.values(m.projects)) {
      if (!sameHistory || p.applied > history.seq) p.applied = -1;
      if (p.applied >= 0 && (newest.get(p.teamId) ?? -1) > p.applied) await admin(`DELETE FROM events WHERE team_id = ${p.teamId} AND ${LOG_SEQ_COLUMN} > ${p.applied}`);
    }
    saveManifest(m);
    seen.clear();
    generation = engine.generation();
    return m;
  }

  function saveManifest(m: Manifest): void {
    const tmp = `${manifestFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(m));
    renameSync(tmp, manifestFile);
  }

  /** Loads a file's bytes into a table through a file in the data folder (chdb's own insert parses slower). */
  async function load(spec: LoadSpec, table: string, data: LoadBuffer): Promise<void> {
    if (data.rows === 0) return;
    await options.beforeLoad?.({ table, rows: data.rows });
    const file = path.join(loadDir, `${++fileSeq}.${spec.format.toLowerCase()}`);
    const handle = await open(file, "w");
    try {
      await handle.writev(data.chunks());
    } finally {
      await handle.close();
      // On disk now: its chunks go to the next file.
      data.release();
    }
    try {
      await admin(`INSERT INTO ${table} (${spec.columns.map((c) => `\`${c}\``).join(", ")}) SELECT ${spec.select} FROM file('${file.replace(/'/g, "\\'")}', '${spec.format}', '${spec.structure.replace(/'/g, "\\'")}') SETTINGS insert_allow_materialized_columns = 1, max_threads = ${LOAD_THREADS}`);
    } finally {
      await rm(file, { force: true });
    }
  }

  /**
   * Loads the rows of `table` (a table that no longer changes) in `runs` ([from, to) position pairs) into `target`,
   * encoding the next file while ClickHouse reads the last.
   */
  async function loadRuns(table: EventTable, teamId: number, runs: readonly number[], target: string, groupKeys: ReturnType<typeof groupKeyReaders>, report: SyncReport): Promise<number> {
    let rows = 0;
    for (let r = 0; r < runs.length; r += 2) rows += runs[r + 1]! - runs[r]!;
    if (rows === 0) return 0;
    // One encoder per load: its pieces are dropped with it (a dictionary's worth of strings at ten million events).
    const encoder = new ColumnEncoder(table, MATERIALIZED_KEYS, groupKeys);
    // A load of several files makes as many parts; merging them while loading rewrote the rows again on the
    // way to the first answer: the merges wait until the load is done (queries read unmerged parts as well).
    const bulk = rows > fileRows;
    if (bulk) await admin(`SYSTEM STOP MERGES ${target}`);
    try {
      await encodeAndLoad(encoder, table.cursor(), teamId, runs, target, report);
    } finally {
      if (bulk) await admin(`SYSTEM START MERGES ${target}`);
    }
    report.encoderFallbacks += encoder.fallbacks;
    return rows;
  }

  async function encodeAndLoad(encoder: ColumnEncoder, row: ReturnType<EventTable["cursor"]>, teamId: number, runs: readonly number[], target: string, report: SyncReport): Promise<void> {
    // The file ClickHouse reads while the next is encoded: its failure is kept (never left unhandled when the
    // engine dies meanwhile) and thrown at the next wait.
    let inFlight: Promise<void> = Promise.resolve();
    let failure: { error: unknown } | null = null;
    const awaitInFlight = async () => {
      await inFlight;
      if (failure) throw failure.error;
    };
    let out = new LoadBuffer();
    let sinceYield = 0;
    for (let r = 0; r < runs.length; r += 2) {
      for (let s = runs[r]!; s < runs[r + 1]!; ) {
        const end = Math.min(runs[r + 1]!, s + SLICE_ROWS - sinceYield, s + fileRows - out.rows);
        const t = performance.now();
        encoder.encode(row, s, end, teamId, out);
        report.encodeMs += performance.now() - t;
        sinceYield += end - s;
        s = end;
        if (out.rows >= fileRows) {
          await awaitInFlight();
          inFlight = load(EVENTS_LOAD, target, out).catch((error: unknown) => void (failure ??= { error }));
          out = new LoadBuffer();
        }
        if (sinceYield >= SLICE_ROWS) {
          sinceYield = 0;
          await yieldToLoop();
        }
      }
    }
    await awaitInFlight();
    await load(EVENTS_LOAD, target, out);
  }

  /** Replaces a project's partition of `table` with what its staging table holds (or drops it when empty). */
  async function replacePartition(table: string, teamId: number, rows: number): Promise<void> {
    if (rows === 0) await admin(`ALTER TABLE ${table} DROP PARTITION ${teamId}`);
    else await admin(`ALTER TABLE ${table} REPLACE PARTITION ${teamId} FROM ${stageOf(table)}`);
    await admin(`TRUNCATE TABLE ${stageOf(table)}`);
  }

  /**
   * A project's events, from the table as it stands at one log number: the rows numbered after the number
   * applied, or all of them (staged, then replacing the partition) when the project was reset since or its group
   * types changed (they fill the group columns).
   */
  async function syncEvents(projectId: string, p: ProjectState, report: SyncReport): Promise<void> {
    // Read in one turn: every row of `table` is numbered at most `upTo`, and no later change moves them.
    const upTo = log().seq;
    const table = store.analysisData.events(projectId).share();
    const groupData = store.analysisData.groupData(projectId);
    const groupTypes = JSON.stringify(groupData.types.map((t) => [t.group_type_index, t.group_type]).sort());
    const groupKeys = groupKeyReaders(groupData);
    const whole = p.applied < 0 || p.applied < log().resetSeqOf(projectId) || p.groupTypes !== groupTypes;
    if (whole) {
      report.rebuilt += await loadRuns(table, p.teamId, [0, table.length], stageOf("events"), groupKeys, report);
      await replacePartition("events", p.teamId, table.length);
    } else {
      report.appended += await loadRuns(table, p.teamId, table.runsAfter(p.applied), "events", groupKeys, report);
    }
    p.applied = upTo;
    p.groupTypes = groupTypes;
  }

  async function syncPersons(projectId: string, p: ProjectState, report: SyncReport): Promise<boolean> {
    const { persons, distinctIds } = encodePersons(store.analysisData.index(projectId).personsById.values(), p.teamId);
    const hash = createHash("sha1").update(persons.bytes()).update("\0").update(distinctIds.bytes()).digest("hex");
    if (hash === p.persons) return false;
    await load(PERSONS_LOAD, stageOf("persons"), persons);
    await replacePartition("persons", p.teamId, persons.rows);
    await load(PDI_LOAD, stageOf("person_distinct_ids"), distinctIds);
    await replacePartition("person_distinct_ids", p.teamId, distinctIds.rows);
    p.persons = hash;
    report.personsReplaced++;
    return true;
  }

  async function syncGroups(projectId: string, p: ProjectState, report: SyncReport): Promise<void> {
    const groups = encodeGroups(store.analysisData.groups(projectId), p.teamId);
    const hash = createHash("sha1").update(groups.bytes()).digest("hex");
    if (hash === p.groups) return;
    await load(GROUPS_LOAD, stageOf("groups"), groups);
    await replacePartition("groups", p.teamId, groups.rows);
    p.groups = hash;
    report.groupsReplaced++;
  }

  async function syncOnce(report: SyncReport): Promise<void> {
    const revision = store.revision();
    if (!manifest || generation !== engine.generation()) manifest = await openTables();
    const m = manifest;
    const projects = new Set([...store.projects.all().map((p) => p.id), ...Object.keys(m.projects)]);
    let personsChanged = false;
    for (const projectId of projects) {
      // Read before loading: a change made while this project loads is seen by the next sync.
      const mark = { version: store.analysisData.version(projectId), index: store.analysisData.index(projectId) };
      const last = seen.get(projectId);
      const p = (m.projects[projectId] ??= emptyProject(projectId));
      if (last && last.version === mark.version && last.index === mark.index) {
        // Unchanged since its last sync (every change moves the version): current at today's number too.
        p.applied = log().seq;
        continue;
      }
      await syncEvents(projectId, p, report);
      personsChanged = (await syncPersons(projectId, p, report)) || personsChanged;
      await syncGroups(projectId, p, report);
      saveManifest(m);
      seen.set(projectId, mark);
    }
    if (personsChanged) await admin(`SYSTEM RELOAD DICTIONARY ${PDI_DICTIONARY}`);
    saveManifest(m);
    syncedRevision = revision;
  }

  return {
    /**
     * Brings the mirror up to the store as it is now. Syncs run one after another; a caller arriving during one
     * waits for it and then for one more if the store changed meanwhile.
     */
    sync(): Promise<SyncReport> {
      const report: SyncReport = { appended: 0, rebuilt: 0, personsReplaced: 0, groupsReplaced: 0, encodeMs: 0, encoderFallbacks: 0, ms: 0 };
      const started = performance.now();
      const next = running.then(async () => {
        if (syncedRevision === store.revision() && generation === engine.generation()) return;
        try {
          await syncOnce(report);
        } finally {
          dropSpareChunks();
        }
      });
      running = next.catch(() => undefined);
      return next.then(() => ({ ...report, ms: performance.now() - started }));
    },
  };
}

export type Mirror = ReturnType<typeof createMirror>;

function readManifest(file: string): Manifest | null {
  try {
    const m = JSON.parse(readFileSync(file, "utf8")) as Manifest;
    return typeof m?.schema === "string" && typeof m.projects === "object" ? m : null;
  } catch {
    return null;
  }
}
