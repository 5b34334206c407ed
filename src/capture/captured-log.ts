import { EventEmitter } from "node:events";

/** One capture request as received and decoded, for test authors debugging their instrumentation. */
export interface CapturedRequest {
  at: string;
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  content_type: string | null;
  content_encoding: string | null;
  body_bytes: number;
  status: number;
  /** The decoded JSON payload; null when it could not be decoded. */
  decoded: unknown;
  /** Why the request was refused; null when it was accepted. */
  error: string | null;
  /** A flags request: whom it evaluated, and each flag's value (variant key or boolean). */
  flags?: { distinct_id: string; groups: Record<string, string>; values: Record<string, string | boolean> };
}

/** One event an accepted capture request stored, as normalised (what a test waits for and a tracking plan judges). */
export interface CapturedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  /** The event's time after clock-skew correction, ISO. */
  timestamp: string;
  /** When the server received it (wall clock), ISO. */
  captured_at: string;
}

/** Events kept for waiting and judging: a bounded ring, as the request logs. */
export const CAPTURED_EVENTS_SIZE = 10_000;

/**
 * The last `size` capture requests, newest first; older ones drop out. The events they stored are kept too
 * (the last CAPTURED_EVENTS_SIZE), and every append is announced on `appended` ("events", with the new events;
 * "cleared" when the log empties): waiters wake on it instead of polling, and check only what it brings.
 */
export class CapturedLog {
  #entries: CapturedRequest[] = [];
  #events: CapturedEvent[] = [];
  /** Each request's stored events, for filtering requests by what they carried. */
  #eventsOf = new WeakMap<CapturedRequest, CapturedEvent[]>();
  /** Each stored event's place in the order of all events ever stored: what is still kept is the last #events.length. */
  #sequenceOf = new WeakMap<CapturedEvent, number>();
  #stored = 0;
  readonly appended: EventEmitter = new EventEmitter();
  total = 0;

  constructor(readonly size: number) {
    // One listener per waiting test client; many can wait at once.
    this.appended.setMaxListeners(0);
  }

  push(entry: CapturedRequest, events: CapturedEvent[] = []): void {
    this.total++;
    this.#entries.push(entry);
    if (this.#entries.length > this.size) this.#entries.splice(0, this.#entries.length - this.size);
    if (events.length === 0) return;
    this.#eventsOf.set(entry, events);
    for (const event of events) this.#sequenceOf.set(event, this.#stored++);
    this.#events.push(...events);
    if (this.#events.length > CAPTURED_EVENTS_SIZE) this.#events.splice(0, this.#events.length - CAPTURED_EVENTS_SIZE);
    this.appended.emit("events", events);
  }

  list(limit = this.size): CapturedRequest[] {
    return this.#entries.slice(-limit).reverse();
  }

  /** The events a logged request stored (none for a refused or flags request). */
  eventsOf(entry: CapturedRequest): readonly CapturedEvent[] {
    return this.#eventsOf.get(entry) ?? [];
  }

  /** Stored events in the order they were captured (oldest first). */
  events(): readonly CapturedEvent[] {
    return this.#events;
  }

  /** Whether a stored event is still kept (not dropped out of the ring, not cleared). */
  holds(event: CapturedEvent): boolean {
    const sequence = this.#sequenceOf.get(event);
    return sequence !== undefined && sequence >= this.#stored - this.#events.length;
  }

  clear(): void {
    this.#entries = [];
    this.#events = [];
    this.appended.emit("cleared");
  }
}
