/** How much the server writes to stderr: nothing, requests and errors, or also stack traces at start-up. */
export type LogLevel = "silent" | "info" | "debug";

/** Request and error logging. Only method, path, status and duration: never headers, bodies or query strings (keys stay out of logs). */
export interface Logger {
  info(message: string): void;
  request(method: string, path: string, status: number, ms: number): void;
  error(message: string, err: unknown): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l + "\n")): Logger {
  return {
    info: (message) => level !== "silent" && write(message),
    request: (method, path, status, ms) => level !== "silent" && write(`${method} ${path} ${status} ${ms.toFixed(1)}ms`),
    error: (message, err) => write(`error: ${message}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
  };
}
