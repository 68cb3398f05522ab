import type { Dispatcher } from "undici";
import { AnswerTooLarge, toUnreachable } from "./network-errors.ts";
import type { TokenUsage } from "./usage.ts";

/** Receives an upstream response as it arrives (no stream objects in between). */
export interface ResponseSink {
  /** The final status and content type arrived. */
  start(statusCode: number, contentType: string): void;
  data(chunk: Buffer): void;
  end(): void;
  /** A network failure or timeout (UpstreamUnreachable), or the abort the caller asked for. */
  error(error: Error): void;
  /**
   * The tokens the provider reported, before `end()`, when the backend read them from an answer it passes on in
   * another API's format (an OpenAI answer's usage is read from the answer itself).
   */
  usage?(usage: TokenUsage): void;
}

/** Control over a request in flight. */
export interface UpstreamCall {
  /** Stops the request at once (the client went away); the sink then gets error(). */
  abort(): void;
  pause(): void;
  resume(): void;
  readonly aborted: boolean;
}

/**
 * A call that cannot start yet (its body is still being prepared): it holds what the caller asks meanwhile and passes
 * it on to the real call. Aborted before that, it ends at once and the real call is never made.
 */
export class PendingCall implements UpstreamCall {
  #call: UpstreamCall | undefined;
  #aborted = false;
  #paused = false;

  constructor(private readonly sink: ResponseSink) {}

  get aborted(): boolean {
    return this.#aborted;
  }

  /** The real call, once made (not when aborted: callers check `aborted` first). */
  begin(call: UpstreamCall): void {
    this.#call = call;
    if (this.#paused) call.pause();
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    if (this.#call) this.#call.abort();
    else this.sink.error(new ClientGone());
  }

  pause(): void {
    this.#paused = true;
    this.#call?.pause();
  }

  resume(): void {
    this.#paused = false;
    this.#call?.resume();
  }
}

/** An error meaning "we aborted this on purpose". */
export class ClientGone extends Error {
  override readonly name = "AbortError";
  constructor() {
    super("the client went away");
  }
}

/** undici's low-level handler, adapted to a ResponseSink; a body over `answerLimitBytes` fails with AnswerTooLarge. */
export class SinkHandler implements Dispatcher.DispatchHandler, UpstreamCall {
  #controller: Dispatcher.DispatchController | undefined;
  #aborted = false;
  #done = false;
  #bodyBytes = 0;

  constructor(
    private readonly sink: ResponseSink,
    private readonly answerLimitBytes: number,
  ) {}

  get aborted(): boolean {
    return this.#aborted;
  }

  abort(): void {
    if (this.#aborted || this.#done) return;
    this.#aborted = true;
    this.#controller?.abort(new ClientGone());
  }

  pause(): void {
    this.#controller?.pause();
  }

  resume(): void {
    this.#controller?.resume();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#aborted) controller.abort(new ClientGone());
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // undici's controller keeps the response head's raw header buffers for as long as the response lasts (about 1 KB);
    // only the parsed headers are read, once, so a stream need not hold them.
    if ("rawHeaders" in controller) controller.rawHeaders = null;
    if (statusCode < 200) return;
    const type = headers["content-type"];
    this.sink.start(statusCode, typeof type === "string" ? type : "application/json");
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#done) return;
    this.#bodyBytes += chunk.length;
    if (this.#bodyBytes <= this.answerLimitBytes) {
      this.sink.data(chunk);
      return;
    }
    this.#done = true;
    controller.abort(new AnswerTooLarge(this.answerLimitBytes));
    this.sink.error(new AnswerTooLarge(this.answerLimitBytes));
  }

  onResponseEnd(): void {
    this.#done = true;
    this.sink.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#done) return;
    this.#done = true;
    this.sink.error(this.#aborted ? new ClientGone() : toUnreachable(error));
  }
}
