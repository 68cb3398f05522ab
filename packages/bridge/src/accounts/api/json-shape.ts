// The raw JSON bytes' shape, checked before they are decoded and parsed (the scanner is shared with the gateway):
// nesting depth and the number of values are counted, so a hostile body is refused in about a millisecond per MiB
// instead of being built into objects first (JSON.parse of deep nesting or of tens of thousands of values stalls the
// event loop). Syntax is not checked here: JSON.parse does that next.
import { type ShapeLimits, wholeBodyShapeProblem } from "@switchboard/common";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from "./limits.ts";

/** A message has a handful of members; the limit on one object's members is the limit on values. */
const MESSAGE_SHAPE: ShapeLimits = { maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES, maxKeys: MAX_JSON_VALUES };

/** Why the JSON is beyond what a message needs, or undefined when its shape is within the limits. */
export function jsonShapeProblem(bytes: Uint8Array): string | undefined {
  const body = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const problem = wholeBodyShapeProblem(body, MESSAGE_SHAPE);
  if (problem === "depth") return `JSON nested deeper than ${MAX_JSON_DEPTH} levels; a message needs at most 4`;
  if (problem === "values" || problem === "keys") {
    return `JSON with more than ${MAX_JSON_VALUES} values (array items and object members); a message needs far fewer`;
  }
  // "unbalanced" is a syntax error: JSON.parse names it next.
  return undefined;
}
