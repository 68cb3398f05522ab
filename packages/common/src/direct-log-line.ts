// Log lines built directly in the form pino writes them, for the one line a service writes per request: pino's
// generic serialisation of the same object (and its redaction paths) was the largest allocation of a request in both
// services (docs/benchmarks.md, "Figures behind the code"). pino's own parts of a line are reached through its
// documented symbols, so that the logger's settings (level form, time, bindings, message key, destination) still
// apply; each service's test holds its lines equal to pino's. For lines that hold no secret by construction: no
// redaction is applied.
import pino, { type Logger } from "pino";

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

/** A number as pino writes one: null when it is not finite (JSON has no NaN). */
export const jsonNumber = (value: number): number | null => (Number.isFinite(value) ? value : null);

export interface DirectInfoLines {
  /** Whether the logger writes info lines now (its level may change at run time). */
  enabled(): boolean;
  /** Writes one info line: `fields` is the JSON of the fields, each as `,"key":value`. */
  write(fields: string, message: string): void;
}

export function directInfoLines(logger: Logger): DirectInfoLines {
  const internals = logger as unknown as PinoInternals;
  const info = logger.levels.values["info"] ?? 30;
  const start = internals[pino.symbols.lsCacheSym][info];
  const time = internals[pino.symbols.timeSym];
  const bindings = internals[pino.symbols.chindingsSym];
  const messageKey = JSON.stringify(internals[pino.symbols.messageKeySym]);
  const stream = internals[pino.symbols.streamSym];
  return {
    enabled: () => logger.levelVal <= info,
    write: (fields, message) =>
      stream.write(`${start}${time()}${bindings}${fields},${messageKey}:${JSON.stringify(message)}}\n`),
  };
}
