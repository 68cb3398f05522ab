/**
 * A posted message that is not taken, with a designed answer: a client mistake (400), or a message the bridge could
 * not keep (503: its state file cannot be written). Answered with this status and message, never a crash.
 */
export class InboundError extends Error {
  constructor(
    readonly status: 400 | 503,
    message: string,
  ) {
    super(message);
  }
}
