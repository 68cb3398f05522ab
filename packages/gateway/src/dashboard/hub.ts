import type { WebSocket } from "ws";
import type { EventBus, GatewayEvent } from "../telemetry/events.ts";
import { historyEntry } from "../telemetry/history.ts";
import { type DashboardSources, fleetUpdate, snapshot } from "./snapshot.ts";

export interface HubSettings {
  /** How often pending events go out, as one message per client. */
  flushIntervalMs: number;
  /** Bytes a client may have unsent before it is treated as behind. */
  maxBufferedBytes: number;
  /** Clients connected at once (`[server] dashboard_max_clients`); more are refused (503, or 1013 once upgraded). */
  maxClients: number;
}

export const HUB_DEFAULTS: HubSettings = { flushIntervalMs: 100, maxBufferedBytes: 1024 * 1024, maxClients: 100 };

/** WebSocket close code 1013, "try again later": the limit was reached while the handshake was under way. */
const TRY_AGAIN_LATER = 1013;

/** A message sent to many clients: encoded once, every socket sends the same bytes (ws does not copy a Buffer). */
const encode = (message: Record<string, unknown>) => Buffer.from(JSON.stringify(message));

/** Events the page shows, in the shape it reads (requests as history entries). */
function forPage(event: GatewayEvent): Record<string, unknown> | undefined {
  switch (event.type) {
    case "request_completed":
      return { type: "request", request: historyEntry(event) };
    case "backend_health":
    case "backend_changed":
    case "models_changed":
    case "operation":
      return { ...event };
    default:
      return undefined;
  }
}

interface Client {
  socket: WebSocket;
  /** Fell behind: its pending events were dropped; it gets a snapshot once its buffer has drained. */
  behind: boolean;
}

/**
 * The dashboard's live feed: a snapshot on connect, then the events batched every flush interval (a burst of a
 * thousand requests is a few messages), plus the fleet's cards at most once a second while anything happens. A
 * client that cannot keep up is never dropped and never buffers without bound: past `maxBufferedBytes` unsent, its
 * pending events are thrown away and, once its buffer drains, it gets a fresh snapshot instead. At most `maxClients`
 * are connected; every message, snapshots included, is encoded once per flush interval and shared by the clients.
 */
export class DashboardHub {
  readonly #clients = new Set<Client>();
  #pending: Record<string, unknown>[] = [];
  /** The snapshot of this flush interval, built for the first client that needs one (cleared at each flush). */
  #snapshot: Buffer | undefined;
  #changedSinceFleet = false;
  #ticks = 0;
  readonly #timer: NodeJS.Timeout;
  readonly #unsubscribe: () => void;

  constructor(
    events: EventBus,
    readonly sources: DashboardSources,
    readonly settings: HubSettings = HUB_DEFAULTS,
  ) {
    this.#unsubscribe = events.onAny((event) => {
      if (this.#clients.size === 0) return;
      const shown = forPage(event);
      if (shown) this.#pending.push(shown);
      this.#changedSinceFleet = true;
    });
    this.#timer = setInterval(() => this.#flush(), settings.flushIntervalMs);
    this.#timer.unref();
  }

  get size(): number {
    return this.#clients.size;
  }

  /** Bytes queued for all clients and not yet handed to the network (bounded by the slow-client policy). */
  get bufferedBytes(): number {
    let total = 0;
    for (const client of this.#clients) total += client.socket.bufferedAmount;
    return total;
  }

  /** Whether a new client would be over `maxClients` (its upgrade is answered 503). */
  get full(): boolean {
    return this.#clients.size >= this.settings.maxClients;
  }

  accept(socket: WebSocket): void {
    // Upgrades answered concurrently may all have passed the check before the first one got here.
    if (this.full) {
      socket.close(TRY_AGAIN_LATER, "too many dashboard clients; try again later");
      return;
    }
    const client: Client = { socket, behind: false };
    this.#clients.add(client);
    const forget = () => this.#clients.delete(client);
    socket.on("close", forget);
    socket.on("error", forget);
    // The page only listens; anything it sends is a protocol error.
    socket.on("message", () => socket.close(1003, "this socket only sends; the dashboard has nothing to receive"));
    this.#send(client, this.#sharedSnapshot());
  }

  /** Closes every client with 1001 (going away). */
  close(): void {
    clearInterval(this.#timer);
    this.#unsubscribe();
    for (const client of this.#clients) client.socket.close(1001, "gateway shutting down");
    this.#clients.clear();
  }

  #flush(): void {
    const events = this.#pending;
    this.#pending = [];
    this.#snapshot = undefined;
    const fleetDue = ++this.#ticks * this.settings.flushIntervalMs >= 1000 && this.#changedSinceFleet;
    if (fleetDue) {
      this.#ticks = 0;
      this.#changedSinceFleet = false;
    }
    if (this.#clients.size === 0) return;
    const batch = events.length > 0 ? encode({ type: "events", events }) : undefined;
    const fleet = fleetDue ? encode(fleetUpdate(this.sources)) : undefined;
    for (const client of this.#clients) {
      const buffered = client.socket.bufferedAmount;
      if (client.behind) {
        if (buffered > 0) continue;
        client.behind = false;
        this.#send(client, this.#sharedSnapshot());
        continue;
      }
      if (buffered > this.settings.maxBufferedBytes) {
        client.behind = true;
        continue;
      }
      if (batch) this.#send(client, batch);
      if (fleet) this.#send(client, fleet);
    }
  }

  /**
   * The whole picture as of this flush interval: 500 clients connecting at once cost one snapshot, not 500. The
   * events since the last flush go out at the next one, to these clients too, so nothing is missed.
   */
  #sharedSnapshot(): Buffer {
    this.#snapshot ??= encode(snapshot(this.sources));
    return this.#snapshot;
  }

  #send(client: Client, message: Buffer): void {
    if (client.socket.readyState === client.socket.OPEN) client.socket.send(message, { binary: false });
  }
}
