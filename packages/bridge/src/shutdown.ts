// What SIGTERM and SIGINT do: refuse new work, drain every outbound queue, stop the accounts, and exit 0 when
// everything queued was delivered, 1 when ShutdownTimeout ran out or a second signal cut work short (a process
// manager then knows that messages were lost; the log says how many, per destination).
import type { Logger } from "pino";

/** The steps of a stop, as Bridge implements them. */
interface StoppableBridge {
  stopAccepting(retryAfterSeconds: number): void;
  drain(): Promise<void>;
  stop(): Promise<void>;
  cut(): void;
  busyAccounts(): string[];
  /** Queued messages dropped so far by stop() or cut(). */
  readonly undelivered: number;
}

export interface ShutdownOptions {
  bridge: StoppableBridge;
  logger: Logger;
  /** ShutdownTimeout, in seconds: the whole stop (drain and disconnects) must fit in it. */
  graceSeconds: number;
  exit(code: number): void;
}

/** Returns the signal handler: the first call starts the stop, a second one cuts at once. */
export function shutdownHandler(options: ShutdownOptions): (signal: NodeJS.Signals) => void {
  const { bridge, logger, graceSeconds, exit } = options;
  let stopping = false;

  const cut = (why: string): void => {
    bridge.cut();
    const undelivered = bridge.undelivered;
    logger.error({ undelivered }, `${why}; ${undelivered} queued message(s) not delivered in all; exiting 1`);
    exit(1);
  };

  const stop = async (): Promise<void> => {
    bridge.stopAccepting(graceSeconds);
    await bridge.drain();
    await bridge.stop();
    const undelivered = bridge.undelivered;
    if (undelivered > 0) {
      logger.error({ undelivered }, `stopped with ${undelivered} queued message(s) not delivered; exiting 1`);
      exit(1);
      return;
    }
    logger.info("stopped cleanly");
    exit(0);
  };

  return (signal) => {
    if (stopping) {
      const busy = bridge.busyAccounts().join(", ") || "nothing";
      cut(`${signal} received again: cutting now (work still in progress on ${busy})`);
      return;
    }
    stopping = true;
    logger.info(
      `${signal} received: draining the outbound queues, then stopping (at most ShutdownTimeout = ${graceSeconds} s; ` +
        "a second signal cuts at once)",
    );
    setTimeout(() => {
      const busy = bridge.busyAccounts().join(", ") || "accounts";
      cut(`ShutdownTimeout (${graceSeconds} s) passed with work still in progress on ${busy}: cut`);
    }, graceSeconds * 1000).unref();
    stop().catch((error: unknown) => {
      logger.error({ err: error }, "stop failed");
      exit(1);
    });
  };
}
