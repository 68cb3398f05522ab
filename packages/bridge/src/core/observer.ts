// What the core reports while it relays, for whoever counts (the status endpoint's metrics, src/status/). The core
// calls these, synchronously, and never reads anything back; protocols never see them. Accounts are ids, gateways
// names, both from the config, so whoever counts by them has a bounded set of labels.

/** Why a destination's queue gave a message up. */
export type DropReason = "queue_full" | "send_failed";

export interface RelayObserver {
  /** A message an account received was routed in a gateway (once per gateway, whatever its destinations). */
  received(account: string, gateway: string): void;
  /** A destination account confirmed a message; `elapsedMs` since the router handed it over (when it was received). */
  sent(account: string, gateway: string, elapsedMs: number): void;
  /** A destination's queue gave a message up. */
  dropped(account: string, gateway: string, reason: DropReason): void;
  /** The platform asked to wait before a send (HTTP 429, a flood limit); the message keeps its place. */
  rateLimited(account: string, gateway: string): void;
  /** An account begins an attempt to reconnect. */
  reconnectAttempt(account: string): void;
  /** Bytes of files a destination account uploaded with a message it confirmed (not those it sent as links). */
  fileBytes(account: string, gateway: string, bytes: number): void;
}

/** For a bridge nobody observes. */
export const UNOBSERVED: RelayObserver = {
  received() {},
  sent() {},
  dropped() {},
  rateLimited() {},
  reconnectAttempt() {},
  fileBytes() {},
};
