import { directInfoLines, jsonNumber } from "@switchboard/common";
import type { Logger } from "pino";

/** What a request's access line says, in the order it says it; fields left undefined are left out (as pino does). */
export interface AccessFields {
  requestId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  model: string | undefined;
  backend: string | undefined;
  routeReason: string | undefined;
  promptTokens: number | undefined;
  completionTokens: number | undefined;
  key: string | undefined;
}

export type AccessLineWriter = (fields: AccessFields, message: string) => void;

const q = JSON.stringify;

/** Quoted forms kept at most: the values repeat (methods, paths, models, backends, reasons, keys); ids do not. */
const MAX_QUOTED = 512;

/**
 * JSON.stringify of the access line's repeating values, each kept once quoted: a line has half a dozen of them, and
 * quoting each again was a third of the line's cost. Cleared when full, so that client-chosen values (paths, models)
 * cannot grow it.
 */
function quotedStrings(): (value: string) => string {
  const known = new Map<string, string>();
  return (value) => {
    let quoted = known.get(value);
    if (quoted === undefined) {
      quoted = q(value);
      if (known.size >= MAX_QUOTED) known.clear();
      known.set(value, quoted);
    }
    return quoted;
  };
}

/**
 * Writes access lines at info level as pino would, built directly (common's directInfoLines: pino's serialisation
 * of the same object was the largest allocation on a request's path and about 3 % of the gateway's CPU under load).
 * Access lines hold no secret by construction (no headers, no bodies, the path without its query).
 * `test/unit/access-line.test.ts` holds the two forms equal.
 */
export function accessLineWriter(logger: Logger): AccessLineWriter {
  const lines = directInfoLines(logger);
  const quoted = quotedStrings();
  return (fields, message) => {
    let json = `,"requestId":${q(fields.requestId)},"method":${quoted(fields.method)},"path":${quoted(fields.path)},"status":${jsonNumber(fields.status)},"ms":${jsonNumber(fields.ms)}`;
    if (fields.model !== undefined) json += `,"model":${quoted(fields.model)}`;
    if (fields.backend !== undefined) json += `,"backend":${quoted(fields.backend)}`;
    if (fields.routeReason !== undefined) json += `,"routeReason":${quoted(fields.routeReason)}`;
    if (fields.promptTokens !== undefined) json += `,"promptTokens":${jsonNumber(fields.promptTokens)}`;
    if (fields.completionTokens !== undefined) json += `,"completionTokens":${jsonNumber(fields.completionTokens)}`;
    if (fields.key !== undefined) json += `,"key":${quoted(fields.key)}`;
    lines.write(json, message);
  };
}
