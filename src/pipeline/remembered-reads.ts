import { LRUCache } from "lru-cache";
import { SerializedJson } from "./serialized-body.ts";
import type { HandlerResult } from "./result.ts";
import type { PipelineRequest } from "./process.ts";

/** Distinct reads remembered (each holds a reference to a body the body cache already keeps). */
const MAX_READS = 2_000;

/**
 * Answers a repeated GET with the bytes its handler answered it with, inside the pipeline: after authentication
 * and steering, so a remembered answer never skips either (its request was validated when first answered).
 *
 * A read whose body came from the serialized-body cache (`repeatable`) follows from the state, the analysis
 * cache, the URL and the caller alone; the same request (same URL, same `Authorization` header) at the same
 * revisions gets the same bytes. Profiled on a cached insight, the handler's own work around those bytes (the
 * insight's lookup, its cache key, its analysis key) cost as much as the rest of the answer.
 */
export class RememberedReads {
  readonly #reads = new LRUCache<string, HandlerResult>({ max: MAX_READS });
  /** The store's and the analysis cache's revisions: any write changes one of them. */
  constructor(private readonly revisions: () => string) {}

  /** The key a GET is remembered under, or undefined for any other method. */
  keyOf(req: PipelineRequest): string | undefined {
    if (req.method !== "GET") return undefined;
    const { headers } = req;
    return `${this.revisions()}\n${headers.authorization ?? ""}\n${headers.host ?? ""}${req.originalUrl}`;
  }

  find(key: string): HandlerResult | undefined {
    return this.#reads.size === 0 ? undefined : this.#reads.get(key);
  }

  /** Keeps an answer that may be given again: repeatable, serialized JSON, no headers of its own, not CSV. */
  remember(key: string, result: HandlerResult, format: unknown): void {
    if (result.repeatable && result.body instanceof SerializedJson && !result.headers && format !== "csv") this.#reads.set(key, result);
  }

  /** The contract changed (--watch): what it validated may no longer hold. */
  clear(): void {
    this.#reads.clear();
  }
}
