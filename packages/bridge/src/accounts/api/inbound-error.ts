/** A client mistake in a posted message: answered with this status and message, never a crash. */
export class InboundError extends Error {
  constructor(
    readonly status: 400,
    message: string,
  ) {
    super(message);
  }
}
