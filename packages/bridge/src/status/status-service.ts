// The status endpoint ([general] StatusAddress): GET /health and GET /metrics on their own address, separate from
// the api accounts. The bridge hands its metrics to the core as the RelayObserver and gives read-only access to the
// accounts; this module never changes anything in the core.
import { once } from "node:events";
import type { Server } from "node:http";
import type { Logger } from "pino";
import { listenFailureReason, parseHostPort, showHostPort } from "../config/host-port.ts";
import type { BridgeConfig } from "../config/types.ts";
import type { AccountView } from "./account-view.ts";
import { healthReport } from "./health.ts";
import { BridgeMetrics, type Route } from "./metrics.ts";
import { createStatusServer, STATUS_SERVER_LIMITS, type StatusAnswer, type StatusRoutes } from "./server.ts";

export interface StatusServiceOptions {
  logger: Logger;
  /** The accounts, read at each request. */
  accounts: () => Iterable<AccountView>;
}

/** Every account x gateway x channel the config routes through. */
function routesOf(config: BridgeConfig): Route[] {
  return config.gateways.flatMap((gateway) =>
    gateway.channels.map((channel) => ({ account: channel.account, gateway: gateway.name, channel: channel.channel })),
  );
}

function healthAnswer(accounts: Iterable<AccountView>): StatusAnswer {
  const { status, body } = healthReport(accounts);
  return { status, contentType: "application/json; charset=utf-8", body: JSON.stringify(body) };
}

export class StatusService {
  /** Hand to the core (router and accounts) as their observer. */
  readonly metrics: BridgeMetrics;
  readonly #address: string;
  readonly #logger: Logger;
  readonly #server: Server;
  #listening = false;

  constructor(config: BridgeConfig, options: StatusServiceOptions) {
    this.#address = config.general.StatusAddress;
    this.#logger = options.logger;
    this.metrics = new BridgeMetrics(routesOf(config), options.accounts);
    const routes: StatusRoutes = new Map<string, () => StatusAnswer | Promise<StatusAnswer>>([
      ["/health", () => healthAnswer(options.accounts())],
      ["/metrics", () => this.#metricsAnswer()],
    ]);
    this.#server = createStatusServer(routes, STATUS_SERVER_LIMITS, (error) =>
      this.#logger.error({ err: error }, "status endpoint: request failed"),
    );
  }

  async #metricsAnswer(): Promise<StatusAnswer> {
    const registry = this.metrics.registry;
    return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
  }

  /** The address actually listened on (useful with port 0). */
  get address(): { host: string; port: number } | undefined {
    const address = this.#server.address();
    return address && typeof address === "object" ? { host: address.address, port: address.port } : undefined;
  }

  /** Listens; rejects with one line naming StatusAddress when it cannot. */
  async start(): Promise<void> {
    const { host, port } = parseHostPort(this.#address);
    this.#server.listen({ host, port });
    try {
      await once(this.#server, "listening");
    } catch (error) {
      const reason = listenFailureReason(error);
      throw new Error(`StatusAddress ${this.#address} ${reason}: change StatusAddress in [general]`);
    }
    this.#listening = true;
    const bound = this.address;
    const shown = bound ? showHostPort(bound.host, bound.port) : this.#address;
    this.#logger.info(`status endpoint listening on http://${shown} (GET /health, GET /metrics)`);
  }

  /** Stops listening and closes every connection (a scrape in progress is cut; it retries on the next interval). */
  async close(): Promise<void> {
    if (!this.#listening) return;
    this.#listening = false;
    const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#server.closeAllConnections();
    await closed;
  }
}
