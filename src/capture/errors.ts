import { ApiError } from "../core/errors.ts";
import { tokenFail } from "../pipeline/authenticate.ts";

/**
 * The capture endpoints' errors: the API's one body shape (`{type, code, detail, attr}`, as the real service's
 * Django capture wrote it) with the current capture's status codes and codes (reference: ingestion §1.6).
 */
const invalid = (code: string, detail: string) => new ApiError(400, { type: "validation_error", code, detail, attr: null });

export const captureFail = {
  emptyPayload: () => invalid("empty_payload", "Request missing data payload."),
  decoding: (detail: string) => invalid("request_decoding_error", `Malformed request data: ${detail}`),
  parsing: (detail: string) => invalid("request_parsing_error", `Malformed request data: ${detail}`),
  emptyBatch: () => invalid("empty_batch", "Request holds no event."),
  notAnEvent: () => invalid("request_parsing_error", "Malformed request data: every event must be a JSON object."),
  missingEventName: () => invalid("missing_event_name", 'Invalid payload: All events must have the event name field "event"!'),
  missingDistinctId: () => invalid("missing_distinct_id", "Event submitted without a distinct_id."),
  invalidUuid: () => invalid("invalid_uuid", "Event submitted with an invalid uuid."),
  invalidCookieless: () => invalid("invalid_cookieless_mode", "$cookieless_mode must be a boolean."),
  /** `/s/`: a snapshot event without its session or its rrweb events; `attr` names the property. */
  missingSnapshotField: (index: number, property: string, what: string) =>
    new ApiError(400, { type: "validation_error", code: "invalid_snapshot", detail: `Invalid payload: snapshot event ${index} has no ${property} (${what}).`, attr: property }),
  inconsistentTokens: () => invalid("unroutable_events", "Batch submitted with inconsistent api_key values."),
  tooLarge: (limit: number) => new ApiError(413, { type: "invalid_request", code: "payload_too_large", detail: `Request body exceeds the capture limit of ${limit} bytes.`, attr: null }),
  missingToken: tokenFail.missing,
  unknownToken: tokenFail.unknown,
};
