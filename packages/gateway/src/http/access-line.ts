import pino, { type Logger } from "pino";

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

/** A number as pino writes one: null when it is not finite (JSON has no NaN). */
const number = (value: number): number | null => (Number.isFinite(value) ? value : null);

/** pino's own parts of a line, reached through its documented symbols so that its settings still apply. */
interface PinoInternals {
  /** The start of a line at each level: `{"level":30` (or the level formatter's form). */
  [pino.symbols.lsCacheSym]: Record<number, string>;
  /** The time field, `,"time":<ms>` by default. */
  [pino.symbols.timeSym]: () => string;
  /** The logger's bindings, `,"key":value...`. */
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.messageKeySym]: string;
  [pino.symbols.streamSym]: { write(line: string): void };
}

/**
 * Writes access lines at info level as pino would, built directly: pino's generic serialisation of the same object
 * was the largest allocation on a request's path and about 3 % of the gateway's CPU under load (docs/benchmarks.md,
 * gateway fast path). Access lines hold no secret by construction (no headers, no bodies, the path without its
 * query), so they need none of the logger's redaction. `test/unit/access-line.test.ts` holds the two forms equal.
 */
export function accessLineWriter(logger: Logger): AccessLineWriter {
  const internals = logger as unknown as PinoInternals;
  const start = internals[pino.symbols.lsCacheSym][logger.levels.values["info"] ?? 30];
  const time = internals[pino.symbols.timeSym];
  const bindings = internals[pino.symbols.chindingsSym];
  const messageKey = JSON.stringify(internals[pino.symbols.messageKeySym]);
  const stream = internals[pino.symbols.streamSym];
  return (fields, message) => {
    let line = `${start}${time()}${bindings},"requestId":${JSON.stringify(fields.requestId)},"method":${JSON.stringify(fields.method)},"path":${JSON.stringify(fields.path)},"status":${number(fields.status)},"ms":${number(fields.ms)}`;
    if (fields.model !== undefined) line += `,"model":${JSON.stringify(fields.model)}`;
    if (fields.backend !== undefined) line += `,"backend":${JSON.stringify(fields.backend)}`;
    if (fields.routeReason !== undefined) line += `,"routeReason":${JSON.stringify(fields.routeReason)}`;
    if (fields.promptTokens !== undefined) line += `,"promptTokens":${number(fields.promptTokens)}`;
    if (fields.completionTokens !== undefined) line += `,"completionTokens":${number(fields.completionTokens)}`;
    if (fields.key !== undefined) line += `,"key":${JSON.stringify(fields.key)}`;
    stream.write(`${line},${messageKey}:${JSON.stringify(message)}}\n`);
  };
}
