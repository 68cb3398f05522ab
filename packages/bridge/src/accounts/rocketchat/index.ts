// The `rocketchat` protocol: a Rocket.Chat bot user on the REST API (sending) and the DDP realtime API (receiving).
import { defineProtocol } from "../../config/descriptor.ts";
import { ROCKETCHAT_KEYS } from "./keys.ts";
import { RocketChatConnection, serverUrl } from "./rocketchat-connection.ts";

export const rocketchatProtocol = defineProtocol({
  name: "rocketchat",
  keys: ROCKETCHAT_KEYS,
  // The webhook mode is Matterbridge's fallback for servers without a bot user; the API mode does all it did.
  unsupportedKeys: ["WebhookURL", "WebhookBindAddress", "Debug"],
  validate(settings) {
    let url: URL | undefined;
    try {
      url = new URL(serverUrl(settings.Server, settings.NoTLS));
    } catch {}
    if (url === undefined || url.hostname === "") {
      return [`Server must be a URL such as "https://chat.example.org" (got ${JSON.stringify(settings.Server)})`];
    }
    return [];
  },
  create: (account, context) => new RocketChatConnection(account, context),
});
