// GET /metrics: Prometheus counters fed by the core's RelayObserver calls, and gauges read from the accounts at
// scrape time. Labels are account ids, gateway names and channels from the config (a bounded set); every series a
// configured route can have is registered at 0, so rate() and absent() work from the first scrape.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { DropReason, RelayObserver } from "../core/observer.ts";
import type { AccountView } from "./account-view.ts";
import { registerProcessMetrics } from "./process-metrics.ts";

/** An account's channel on a gateway, as the config lists it. */
export interface Route {
  account: string;
  gateway: string;
  channel: string;
}

/** From an in-memory hop (the api, ~0.1 ms) to a paced or rate-limited platform (seconds to minutes). */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const DROP_REASONS: readonly DropReason[] = ["queue_full", "send_failed"];

type Child = { inc(value?: number): void };
type Timer = { observe(value: number): void };
/** Label children by key, so the per-message path skips prom-client's label hashing. */
type Children = Map<string, Child>;

export class BridgeMetrics implements RelayObserver {
  readonly registry = new Registry();
  readonly #received: Counter<"account" | "gateway">;
  readonly #sent: Counter<"account" | "gateway">;
  readonly #dropped: Counter<"account" | "gateway" | "reason">;
  readonly #rateLimited: Counter<"account" | "gateway">;
  readonly #reconnects: Counter<"account">;
  readonly #latency: Histogram<"account" | "gateway">;
  readonly #fileBytes: Counter<"account" | "gateway">;
  readonly #receivedOf: Children = new Map();
  readonly #sentOf: Children = new Map();
  readonly #latencyOf = new Map<string, Timer>();

  constructor(routes: readonly Route[], accounts: () => Iterable<AccountView>) {
    const registers = [this.registry];
    this.#received = new Counter({
      name: "bridge_messages_received_total",
      help: "Messages an account received and the router took into a gateway (once per gateway), by source account.",
      labelNames: ["account", "gateway"],
      registers,
    });
    this.#sent = new Counter({
      name: "bridge_messages_sent_total",
      help: "Messages a destination account confirmed (sent, edited or deleted on its platform), by destination.",
      labelNames: ["account", "gateway"],
      registers,
    });
    this.#dropped = new Counter({
      name: "bridge_messages_dropped_total",
      help: "Messages a destination's outbound queue gave up: queue_full (MessageQueue reached) or send_failed (refused, or retries exhausted).",
      labelNames: ["account", "gateway", "reason"],
      registers,
    });
    this.#rateLimited = new Counter({
      name: "bridge_rate_limited_total",
      help: "Sends a platform asked to wait for (HTTP 429, flood limits); the message waited and kept its place.",
      labelNames: ["account", "gateway"],
      registers,
    });
    this.#reconnects = new Counter({
      name: "bridge_reconnect_attempts_total",
      help: "Reconnect attempts begun after an account's link dropped or its first connect failed.",
      labelNames: ["account"],
      registers,
    });
    this.#latency = new Histogram({
      name: "bridge_relay_latency_seconds",
      help: "Time from a message's receipt by the bridge to the destination's confirmation, by destination account.",
      labelNames: ["account", "gateway"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#fileBytes = new Counter({
      name: "bridge_file_bytes_total",
      help: "Bytes of files (attachments, images) uploaded to a destination account, by destination (not those sent as links).",
      labelNames: ["account", "gateway"],
      registers,
    });
    registerAccountGauges(this.registry, routes, accounts);
    registerProcessMetrics(this.registry);

    const accountIds = new Set(routes.map((route) => route.account));
    for (const account of accountIds) this.#reconnects.labels(account).inc(0);
    for (const { account, gateway } of routes) {
      for (const counter of [this.#received, this.#sent, this.#rateLimited, this.#fileBytes]) {
        counter.labels(account, gateway).inc(0);
      }
      for (const reason of DROP_REASONS) this.#dropped.labels(account, gateway, reason).inc(0);
      this.#latency.zero({ account, gateway });
    }
  }

  received(account: string, gateway: string): void {
    cached(this.#receivedOf, account, gateway, () => this.#received.labels(account, gateway)).inc();
  }

  sent(account: string, gateway: string, elapsedMs: number): void {
    cached(this.#sentOf, account, gateway, () => this.#sent.labels(account, gateway)).inc();
    const latency = cached(this.#latencyOf, account, gateway, () => this.#latency.labels(account, gateway));
    latency.observe(Math.max(0, elapsedMs) / 1000);
  }

  dropped(account: string, gateway: string, reason: DropReason): void {
    this.#dropped.labels(account, gateway, reason).inc();
  }

  rateLimited(account: string, gateway: string): void {
    this.#rateLimited.labels(account, gateway).inc();
  }

  reconnectAttempt(account: string): void {
    this.#reconnects.labels(account).inc();
  }

  fileBytes(account: string, gateway: string, bytes: number): void {
    if (Number.isFinite(bytes) && bytes > 0) this.#fileBytes.labels(account, gateway).inc(bytes);
  }
}

function cached<T>(children: Map<string, T>, account: string, gateway: string, make: () => T): T {
  const key = `${account}\0${gateway}`;
  let child = children.get(key);
  if (child === undefined) {
    child = make();
    children.set(key, child);
  }
  return child;
}

/** Gauges read at scrape time: whether each account is connected, and each destination's queue depth. */
function registerAccountGauges(registry: Registry, routes: readonly Route[], accounts: () => Iterable<AccountView>) {
  const registers = [registry];
  new Gauge({
    name: "bridge_account_connected",
    help: "1 when the account is connected (and has joined its channels), else 0.",
    labelNames: ["account"],
    registers,
    collect() {
      this.reset();
      for (const account of accounts()) {
        this.set({ account: account.id }, account.supervisor.status.state === "connected" ? 1 : 0);
      }
    },
  });
  const channelsOf = new Map<string, Set<string>>();
  for (const { account, channel } of routes) {
    const channels = channelsOf.get(account) ?? new Set<string>();
    channels.add(channel);
    channelsOf.set(account, channels);
  }
  new Gauge({
    name: "bridge_outbound_queue_depth",
    help: "Messages held in a destination's outbound queue (paced, rate-limited, or waiting for the account to reconnect).",
    labelNames: ["account", "channel"],
    registers,
    collect() {
      this.reset();
      for (const account of accounts()) {
        const depths = account.queueDepths();
        for (const channel of channelsOf.get(account.id) ?? []) {
          this.set({ account: account.id, channel }, depths.get(channel) ?? 0);
        }
      }
    },
  });
}
