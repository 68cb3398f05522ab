// A string of the request body that stayed in the parse worker (see http/long-texts.ts for why): what every layer
// that reads a prompt's text may find in its place.

/** Strings at least this long come back from the parse worker as LongText. */
export const LONG_TEXT_CHARS = 64 * 1024;
/** Characters kept of a long text, to estimate its tokens from. */
export const LONG_TEXT_SAMPLE_CHARS = 8 * 1024;

/** A string of the request body that stayed in the worker: its length and its first characters. */
export class LongText {
  constructor(
    readonly length: number,
    readonly sample: string,
  ) {}
}

export const isText = (value: unknown): value is string | LongText =>
  typeof value === "string" || value instanceof LongText;
