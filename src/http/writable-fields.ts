/** Only the writable fields of a body; read-only fields sent along are ignored, as the real service does. */
export function writableFields<T>(body: unknown, fields: readonly string[]): T {
  const source = (body ?? {}) as Record<string, unknown>;
  const input: Record<string, unknown> = {};
  for (const field of fields) if (Object.hasOwn(source, field)) input[field] = source[field];
  return input as T;
}
