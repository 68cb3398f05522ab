// Assembles a running bridge from a validated config: accounts, the router, start and stop.
import type { Logger } from "pino";
import { ACCOUNT_FACTORIES } from "./accounts/registry.ts";
import type { BridgeConfig } from "./config/types.ts";
import type { Account } from "./core/account.ts";
import { Router } from "./core/router.ts";

export interface BridgeOptions {
  logger: Logger;
  debug?: boolean;
}

export class Bridge {
  readonly accounts = new Map<string, Account>();
  readonly router: Router;
  readonly #started: Account[] = [];
  readonly #logger: Logger;
  readonly #debug: boolean;

  constructor(
    readonly config: BridgeConfig,
    options: BridgeOptions,
  ) {
    this.#logger = options.logger;
    this.#debug = options.debug ?? false;
    for (const [id, account] of config.accounts) {
      // The protocol name comes from the config: an own property only (never "constructor" and the like).
      const factory = Object.hasOwn(ACCOUNT_FACTORIES, account.protocol)
        ? ACCOUNT_FACTORIES[account.protocol]
        : undefined;
      if (!factory) throw new Error(`no implementation for protocol ${account.protocol}`);
      this.accounts.set(id, factory(account));
    }
    this.router = new Router(config, this.accounts, { logger: this.#logger, debug: this.#debug });
  }

  /** Starts every account; if one fails, the ones already started are stopped and the error is rethrown. */
  async start(): Promise<void> {
    for (const warning of this.config.warnings) this.#logger.warn(warning);
    for (const account of this.accounts.values()) {
      const memberships = this.config.gateways.flatMap((gateway) =>
        gateway.channels
          .filter((channel) => channel.account === account.id)
          .map((channel) => ({ gateway: gateway.name, channel: channel.channel, direction: channel.direction })),
      );
      try {
        await account.start({ sink: this.router, logger: this.#logger, debug: this.#debug, memberships });
      } catch (error) {
        await this.stop();
        throw error;
      }
      this.#started.push(account);
    }
    const names = this.config.gateways.map((g) => g.name).join(", ");
    this.#logger.info(`bridge started: ${this.accounts.size} account(s), gateway(s): ${names}`);
  }

  /** Accounts whose stop has begun and not finished yet (what a shutdown would cut). */
  readonly stillStopping = new Set<string>();

  async stop(): Promise<void> {
    const started = this.#started.splice(0).reverse();
    await Promise.allSettled(
      started.map(async (account) => {
        this.stillStopping.add(account.id);
        try {
          await account.stop();
        } finally {
          this.stillStopping.delete(account.id);
        }
      }),
    );
  }
}
