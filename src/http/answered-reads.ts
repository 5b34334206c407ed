import type { IncomingMessage } from "node:http";
import { LRUCache } from "lru-cache";
import type { SerializedJson } from "./serialized-body.ts";

/** Distinct reads remembered (each holds a reference to a body the body cache already keeps). */
const MAX_READS = 2_000;

/** A read the router answered with a serialized body, remembered under what its answer follows from. */
export interface AnsweredRead {
  operationId: string;
  body: SerializedJson;
}

/** What a repeat needs: nothing may steer it, and the data it read must not have changed. */
export interface ReadConditions {
  /** The store's and the analysis cache's revisions: any write changes one of them. */
  revisions(): string;
  /** False while anything could make the same request answer differently (overrides, rate limits, latency, due deletions). */
  unsteered(): boolean;
}

/**
 * Answers a GET again from the bytes the router answered it with, ahead of express and openapi-backend.
 *
 * A read whose body came from the serialized-body cache follows from the state, the analysis cache, the URL
 * and the caller alone; the same request (same URL, same `Authorization` header) at the same revisions was
 * authenticated and validated the same way, and gets the same bytes. Profiled on a cached insight, the
 * express and openapi-backend machinery around those bytes cost as much as the rest of the answer.
 * A request with `Prefer` or `Origin` (steering, CORS) always takes the full route.
 */
export class AnsweredReads {
  readonly #reads = new LRUCache<string, AnsweredRead>({ max: MAX_READS });
  constructor(private readonly conditions: ReadConditions) {}

  /** The key a GET is remembered under, or undefined when it may not be answered from memory. */
  keyOf(req: IncomingMessage): string | undefined {
    const { headers } = req;
    if (req.method !== "GET" || headers.prefer !== undefined || headers.origin !== undefined) return undefined;
    return `${this.conditions.revisions()}\n${headers.authorization ?? ""}\n${headers.host ?? ""}${req.url}`;
  }

  remember(key: string, operationId: string, body: SerializedJson): void {
    this.#reads.set(key, { operationId, body });
  }

  /** The remembered answer of this request, if it may be given again now. */
  find(req: IncomingMessage): AnsweredRead | undefined {
    if (this.#reads.size === 0 || !req.url?.startsWith("/api/") || !this.conditions.unsteered()) return undefined;
    const key = this.keyOf(req);
    return key === undefined ? undefined : this.#reads.get(key);
  }

  /** The contract changed (--watch): what it validated may no longer hold. */
  clear(): void {
    this.#reads.clear();
  }
}
