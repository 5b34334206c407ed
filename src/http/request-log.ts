/** One answered request, as the control API reports it. Never headers, bodies or query strings (no keys). */
export interface RequestLogEntry {
  at: string;
  method: string;
  path: string;
  status: number;
  /** passed: the request met the contract; failed: rejected by validation (400/413/415); not_checked: refused before validation (401/403). */
  validation: "passed" | "failed" | "not_checked";
  duration_ms: number;
}

/** A bounded log: the oldest entries fall off, so a long soak never grows memory. */
export class RequestLog {
  #entries: RequestLogEntry[] = [];
  #next = 0;
  #total = 0;

  constructor(readonly capacity: number) {}

  push(entry: RequestLogEntry): void {
    if (this.capacity === 0) return;
    this.#total++;
    if (this.#entries.length < this.capacity) {
      this.#entries.push(entry);
      return;
    }
    this.#entries[this.#next] = entry;
    this.#next = (this.#next + 1) % this.capacity;
  }

  /** Newest first. */
  list(limit = this.capacity): RequestLogEntry[] {
    const ordered = [...this.#entries.slice(this.#next), ...this.#entries.slice(0, this.#next)].reverse();
    return ordered.slice(0, limit);
  }

  /** Requests seen since the last clear, including those that fell off. */
  get total(): number {
    return this.#total;
  }

  clear(): void {
    this.#entries = [];
    this.#next = 0;
    this.#total = 0;
  }
}

export const validationOutcome = (status: number): RequestLogEntry["validation"] =>
  status === 400 || status === 413 || status === 415 ? "failed" : status === 401 || status === 403 ? "not_checked" : "passed";
