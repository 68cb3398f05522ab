// Per-channel webhooks, so each relayed message shows its sender's name and avatar (the reason people choose
// Matterbridge for Discord): a channel's WebhookURL from its gateway options, or with AutoWebhooks one of the bot
// application's own webhooks in the channel, found or created. Sends go through discord.js's WebhookClient with
// the account's ApiURL.
import { type TextChannel, WebhookClient } from "discord.js";
import type { Logger } from "pino";
import { makeRequest } from "./rest-request.ts";

/** The name given to webhooks this account creates. */
const WEBHOOK_NAME = "Switchboard";

/** Id and token of `https://discord.com/api/webhooks/<id>/<token>` (any host: the account's ApiURL is used). */
function parseWebhookURL(url: string): { id: string; token: string } | undefined {
  const match = /\/webhooks\/(\d+)\/([^/?#\s]+)\/?(?:[?#].*)?$/.exec(url.trim());
  return match ? { id: match[1] as string, token: match[2] as string } : undefined;
}

export class ChannelWebhooks {
  readonly #clients = new Map<string, WebhookClient>();
  readonly #api: string;
  readonly #logger: Logger;

  constructor(api: string, logger: Logger) {
    this.#api = api;
    this.#logger = logger;
  }

  /** The webhook for a channel id, if it has one. */
  get(channelId: string): WebhookClient | undefined {
    return this.#clients.get(channelId);
  }

  /** Whether a message's webhook id is one of ours (its messages are ours: never relayed back). */
  isOurs(webhookId: string | null): boolean {
    if (webhookId === null) return false;
    for (const client of this.#clients.values()) if (client.id === webhookId) return true;
    return false;
  }

  /** Sets up the channel's webhook: from its WebhookURL, else (AutoWebhooks) the application's own, found or made. */
  async setUp(channel: TextChannel, webhookURL: string, auto: boolean, applicationId: string): Promise<void> {
    if (webhookURL !== "") {
      const parsed = parseWebhookURL(webhookURL);
      if (parsed === undefined) {
        this.#logger.warn({ channel: channel.name }, "WebhookURL is not a Discord webhook URL; sending as the bot");
        return;
      }
      this.#add(channel.id, parsed);
      return;
    }
    if (!auto) return;
    try {
      const existing = await channel.fetchWebhooks();
      const own = existing.find((w) => w.applicationId === applicationId && w.token !== null);
      const webhook = own ?? (await channel.createWebhook({ name: WEBHOOK_NAME, reason: "Switchboard AutoWebhooks" }));
      if (webhook.token === null) throw new Error("the webhook has no token");
      this.#add(channel.id, { id: webhook.id, token: webhook.token });
    } catch (error) {
      // Missing "Manage Webhooks" in this channel: the bot still relays, as itself.
      this.#logger.warn(
        { channel: channel.name, err: error },
        `cannot use a webhook in #${channel.name} (AutoWebhooks needs the Manage Webhooks permission); sending as the bot`,
      );
    }
  }

  #add(channelId: string, credentials: { id: string; token: string }): void {
    this.#clients.get(channelId)?.destroy();
    this.#clients.set(
      channelId,
      new WebhookClient(credentials, { rest: { api: this.#api, rejectOnRateLimit: () => true, makeRequest } }),
    );
  }

  destroy(): void {
    for (const client of this.#clients.values()) client.destroy();
    this.#clients.clear();
  }
}
