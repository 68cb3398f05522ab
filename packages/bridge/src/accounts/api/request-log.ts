// One info line per API request: method, path (never the query or headers, so never a token), status, duration.
// The line is built directly in the form pino writes it, through pino's documented symbols (the level's prefix, the
// time, the logger's bindings, its stream), so that the logger's settings still apply: pino's generic serialisation
// of the same object, with the redaction of every line, cost about 4 % of the bridge's CPU per posted message
// during api -> IRC bursts. The line holds no secret by construction, so it needs no redaction.
// test/request-log.test.ts holds the two forms equal.
import pino, { type Logger } from "pino";

export type RequestLogger = (method: string, url: string, status: number, durationMs: number) => void;

/** pino's own parts of a line, reached through its documented symbols. */
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

const q = JSON.stringify;

/** A number as pino writes one: null when it is not finite (JSON has no NaN). */
const number = (value: number): number | null => (Number.isFinite(value) ? value : null);

export function requestLogger(logger: Logger): RequestLogger {
  const internals = logger as unknown as PinoInternals;
  const info = logger.levels.values["info"] ?? 30;
  const start = internals[pino.symbols.lsCacheSym][info];
  const time = internals[pino.symbols.timeSym];
  const bindings = internals[pino.symbols.chindingsSym];
  const messageKey = q(internals[pino.symbols.messageKeySym]);
  const stream = internals[pino.symbols.streamSym];
  return (method, url, status, durationMs) => {
    if (logger.levelVal > info) return;
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    const ms = Math.round(durationMs * 100) / 100;
    stream.write(
      `${start}${time()}${bindings},"method":${q(method)},"path":${q(path)},"status":${number(status)},"ms":${number(ms)},${messageKey}:${q(`${method} ${path} ${status} ${ms} ms`)}}\n`,
    );
  };
}
