/**
 * The events' write log: every change of a project's events takes the next sequence number, and every copy of the
 * events (the column tables, their snapshot on disk, the ClickHouse mirror) follows it by that number, never by
 * position, count or sample. A captured batch is one number, and each of its rows carries it
 * (`EventTable.seqAt`); a change that is not an append (a deletion, a replaced state, shifted times) is a reset
 * of the projects it touches, after which a follower loads those projects again.
 *
 * Durably, the log is the events file (src/store/events-file.ts): a rewrite starts it with a header naming the
 * epoch and the base (the last number the rewrite includes), and each appended batch follows a marker with its
 * number and the SHA-1 of its lines. The epoch names one history of numbers: a follower that recorded another
 * epoch, or a number before the base, cannot know what it missed and loads everything again.
 */
import { randomUUID } from "node:crypto";

/** Where a log stands: its history and the last number given. */
export interface LogPosition {
  epoch: string;
  seq: number;
}

export class EventLog {
  #seq: number;
  /** Numbers at or below it are known only as a whole (the events file's base, or a reset of every project). */
  #resetAll: number;
  readonly #resets = new Map<string, number>();
  /** Set when the events were read from a file that does not prove this history (older, or edited): it is written again. */
  unwritten = false;

  /**
   * `base`: the last number the stored events include as a whole (0 for a new state); `seq`: the last number
   * given (the base, or the last appended batch read back).
   */
  constructor(
    readonly epoch: string = randomUUID(),
    base = 0,
    seq = base,
  ) {
    this.#seq = seq;
    this.#resetAll = base;
  }

  get seq(): number {
    return this.#seq;
  }

  position(): LogPosition {
    return { epoch: this.epoch, seq: this.#seq };
  }

  /** The number of a new batch of appended events. */
  next(): number {
    return ++this.#seq;
  }

  /** Records that a project's events changed other than by an append; returns its number. */
  reset(projectId: string): number {
    this.#resets.set(projectId, ++this.#seq);
    return this.#seq;
  }

  /** Records that every project's events changed (a replaced state, shifted times). */
  resetAll(): number {
    this.#resets.clear();
    return (this.#resetAll = ++this.#seq);
  }

  /**
   * The last number at which the project's events changed other than by an append: a follower that applied less
   * than it must load the project again.
   */
  resetSeqOf(projectId: string): number {
    return Math.max(this.#resetAll, this.#resets.get(projectId) ?? 0);
  }
}
