// Bounds on the work one posted message can cause before it is validated. A message needs little: about a dozen
// string fields and a short list of files. Anything beyond these limits is a 400 naming the limit, found before the
// body is parsed into objects (JSON.parse of 1 MiB of nesting or of tens of thousands of values stalls the event loop).

/** Deepest nesting a JSON message may have: the message, Extra, Extra.file, a file entry, and room to spare. */
export const MAX_JSON_DEPTH = 8;

/** Most array items plus object members a JSON message may have (counted as separating commas). */
export const MAX_JSON_VALUES = 2048;

/** Most files one message may carry in Extra.file (chat platforms take about 10 per message). */
export const MAX_FILES = 100;

/** Most fields a form-encoded message may have (it needs at most 7). */
export const MAX_FORM_FIELDS = 64;

/** Longest value, in characters, of the fields that name or point at something; text is bounded by BodyLimit only. */
export const MAX_FIELD_LENGTH: ReadonlyMap<string, number> = new Map([
  ["username", 1024],
  ["userid", 1024],
  ["gateway", 1024],
  ["event", 1024],
  ["parent_id", 1024],
  ["avatar", 8192],
]);

/**
 * After a refused body (413, or an error answered before the body was read), this many more bytes are read and
 * discarded so that a client still writing can finish and read the answer; beyond it the connection is closed.
 */
export const MAX_DISCARDED_BODY_BYTES = 16 * 1024 * 1024;
