/** A body that is text of its own media type (a script, a YAML document): written as it is, never as JSON. */
export class TextBody {
  constructor(
    readonly text: string,
    /** The media type without charset: `application/javascript`, `application/yaml`. */
    readonly type: string,
  ) {}
}

/** What a handler returns, on every surface (product API, capture and flags, control API); `write.ts` writes it. */
export interface HandlerResult {
  status: number;
  /** JSON by default; a SerializedJson is written as its bytes, a TextBody as its text; undefined: no body. */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * The body follows from the state, the analysis cache, the URL and the caller alone (never the clock): the
   * same request may be answered again with it until the next write (pipeline/remembered-reads.ts).
   */
  repeatable?: boolean;
  /** Said in the request log's entry, never in the body: how the answer departs from the request's words. */
  notes?: readonly string[];
}

export const reply = (status: number, body?: unknown, headers?: Record<string, string>): HandlerResult => ({ status, body, headers });
