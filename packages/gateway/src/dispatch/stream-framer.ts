/** A stream's framing: the complete events (or lines) in the backend's bytes, and what ends a stream that ended well. */
export interface StreamFramer {
  /** Feeds upstream bytes; returns the complete events they finish (empty when none). */
  push(chunk: Buffer): Buffer | string;
  /** At a clean upstream end: what is left, as complete events, and the API's closing event if the backend left it out. */
  finish(): string;
}
