import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";
import type { StateStore } from "./types.ts";

/** A store failure is logged at most this often (a request per failure would flood the log while Redis is away). */
const FAILURE_LOG_INTERVAL_MS = 10_000;

/**
 * One line when the store is away at start-up or goes away (limits fail open) and one when it is back; failed
 * operations in between are logged at most every 10 s.
 */
export function reportStoreAvailability(store: StateStore, logger: Logger): { failed: (error: unknown) => void } {
  let lastLogged = 0;
  if (!store.up) {
    logger.warn(
      `the ${store.kind} state store is unreachable at start-up: requests with a key get 503 state_store_unavailable (the master key works) until it is reachable; reconnecting`,
    );
    lastLogged = Date.now();
  }
  store.onAvailability((up) => {
    if (up) logger.info(`the ${store.kind} state store is reachable again: key limits apply again`);
    else {
      logger.warn(
        `the ${store.kind} state store is unreachable: key limits fail open (keys this replica has seen keep working, new keys get 503) until it is back; reconnecting`,
      );
      lastLogged = Date.now();
    }
  });
  return {
    failed(error) {
      if (Date.now() - lastLogged < FAILURE_LOG_INTERVAL_MS) return;
      lastLogged = Date.now();
      logger.warn(
        { reason: thrownMessage(error) },
        `a ${store.kind} state store operation failed: key limits fail open for this request (logged at most every 10 s)`,
      );
    },
  };
}
