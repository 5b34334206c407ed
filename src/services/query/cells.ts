import { zoned } from "../../core/time-zones.ts";

type Reader = (value: unknown) => unknown;

const same: Reader = (v) => v;

/**
 * How a result cell of a ClickHouse type is shown: date-times (which the engine writes as ISO 8601 in UTC) in
 * the zone of their type, as the real service's driver returns them: `…Z` in UTC, with the zone's offset
 * elsewhere, milliseconds only when there are some. Every other value is as ClickHouse writes it in JSON
 * (Date as YYYY-MM-DD, UUIDs as text, 64-bit integers as numbers).
 */
export function cellReader(type: string): Reader {
  const inner = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(type);
  if (inner) {
    const read = cellReader(inner[1]!);
    return read === same ? same : (v) => (v === null ? null : read(v));
  }
  const array = /^Array\((.*)\)$/.exec(type);
  if (array) {
    const read = cellReader(array[1]!);
    return read === same ? same : (v) => (Array.isArray(v) ? v.map(read) : v);
  }
  const dateTime = /^DateTime(?:64)?(?:\((?:\d+)?(?:,\s*)?(?:'([^']*)')?\))?$/.exec(type);
  if (dateTime) return dateTimeReader(dateTime[1] ?? "UTC");
  return same;
}

function dateTimeReader(zone: string): Reader {
  return (v) => {
    if (typeof v !== "string") return v;
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) return v;
    return zone === "UTC" ? new Date(ms).toISOString().replace(".000Z", "Z") : zoned(ms, zone).toISO({ suppressMilliseconds: true });
  };
}
