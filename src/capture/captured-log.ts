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

/** The last `size` capture requests, newest first; older ones drop out. */
export class CapturedLog {
  #entries: CapturedRequest[] = [];
  total = 0;

  constructor(readonly size: number) {}

  push(entry: CapturedRequest): void {
    this.total++;
    this.#entries.push(entry);
    if (this.#entries.length > this.size) this.#entries.splice(0, this.#entries.length - this.size);
  }

  list(limit = this.size): CapturedRequest[] {
    return this.#entries.slice(-limit).reverse();
  }

  clear(): void {
    this.#entries = [];
  }
}
