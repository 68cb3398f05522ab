// The outgoing webhook's receiver as a part of the account: listening on WebhookBindAddress from connect() to
// disconnect(), on the same port across reconnects (port 0 picks one the first time; Rocket.Chat's outgoing webhook
// keeps calling the address it was given), with the bound address logged ("<account> listening on http://...").
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { thrownMessage } from "@switchboard/common";
import type { Logger } from "pino";
import { parseHostPort, showHostPort } from "../../config/host-port.ts";
import { AccountFailure } from "../../core/connection.ts";
import type { OutgoingCall } from "./outgoing-payload.ts";
import { createOutgoingWebhookServer } from "./outgoing-webhook-server.ts";

export class OutgoingWebhookListener {
  readonly #accountId: string;
  readonly #bind: string;
  readonly #token: string;
  readonly #logger: Logger;
  #port: number;
  #server: Server | undefined;

  constructor(accountId: string, bind: string, token: string, logger: Logger) {
    this.#accountId = accountId;
    this.#bind = bind.trim();
    this.#token = token;
    this.#logger = logger;
    this.#port = parseHostPort(this.#bind).port;
  }

  async start(deliver: (call: OutgoingCall) => void): Promise<void> {
    const { host } = parseHostPort(this.#bind);
    const server = createOutgoingWebhookServer({
      token: this.#token,
      deliver,
      onError: (error) => this.#logger.error({ err: error }, "an outgoing webhook call failed"),
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(this.#port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } catch (error) {
      server.close();
      throw new AccountFailure(
        `WebhookBindAddress ${this.#bind} ${listenFailure(error)}: change WebhookBindAddress in [${this.#accountId}]`,
      );
    }
    this.#server = server;
    const bound = server.address() as AddressInfo;
    this.#port = bound.port;
    this.#logger.info(
      { token: this.#token === "" ? "any" : "checked" },
      `${this.#accountId} listening on http://${showHostPort(bound.address, bound.port)} for Rocket.Chat's outgoing webhook`,
    );
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (server === undefined) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

function listenFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "EADDRINUSE":
      return "is already in use";
    case "EADDRNOTAVAIL":
      return "is not an address of this machine";
    case "EACCES":
      return "needs more privileges";
    default:
      return `cannot be listened on (${code ?? thrownMessage(error)})`;
  }
}
