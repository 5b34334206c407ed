/**
 * About how many bytes `JSON.stringify(value)` would write, without writing it: a 40 MB answer is weighed by a
 * walk over its values instead of a 40 MB string. Strings count their UTF-16 length plus quotes (exact for
 * ASCII, the usual case; escapes and multi-byte characters are not worth a scan); numbers as written.
 * Iterative, so any depth is safe to ask.
 */
export function estimatedJsonBytes(value: unknown): number {
  let bytes = 0;
  const pending: unknown[] = [value];
  while (pending.length) {
    const item = pending.pop();
    if (typeof item === "string") bytes += item.length + 2;
    else if (typeof item === "number") bytes += numberBytes(item);
    else if (typeof item === "boolean") bytes += item ? 4 : 5;
    else if (item === null || item === undefined) bytes += 4;
    else if (Array.isArray(item)) {
      bytes += 1 + Math.max(1, item.length);
      for (const child of item) pending.push(child);
    } else if (typeof item === "object") {
      const entries = Object.entries(item);
      bytes += 1 + Math.max(1, entries.length);
      for (const [key, child] of entries) {
        bytes += key.length + 3;
        pending.push(child);
      }
    }
  }
  return bytes;
}

/** A number as JSON writes it; NaN and the infinities become `null`. */
const numberBytes = (n: number): number => (Number.isFinite(n) ? String(n).length : 4);
