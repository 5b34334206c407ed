import { LRUCache } from "lru-cache";

/** A JSON body serialized ahead, as UTF-8 bytes: `respond` writes them as they are. */
export class SerializedJson {
  readonly bytes: Buffer;
  constructor(json: string) {
    this.bytes = Buffer.from(json);
  }
}

/** Bytes of serialized bodies kept. */
const MAX_BYTES = 32_000_000;

/**
 * Serialized bodies of reads whose answer follows from the state, the analysis cache and the URL alone (a
 * page of insights, an insight with its cached result). The caller's key must name all three: the store's
 * and the analysis cache's revisions change with every write, so a body is never served after a change.
 * Serializing a page of 100 insights with their results was the largest cost of listing them.
 */
export function createBodyCache() {
  const bodies = new LRUCache<string, SerializedJson>({ maxSize: MAX_BYTES, sizeCalculation: (body) => Math.max(1, body.bytes.length) });
  return function serializedOnce(key: string, build: () => unknown): SerializedJson {
    const cached = bodies.get(key);
    if (cached) return cached;
    const body = new SerializedJson(JSON.stringify(build()));
    if (body.bytes.length <= MAX_BYTES) bodies.set(key, body);
    return body;
  };
}

export type BodyCache = ReturnType<typeof createBodyCache>;
