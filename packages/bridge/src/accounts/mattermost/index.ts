// The `mattermost` protocol: a Mattermost account (a bot account, or a user) on API v4 and the WebSocket API.
import { defineProtocol } from "../../config/descriptor.ts";
import { MATTERMOST_KEYS } from "./keys.ts";
import { MattermostConnection, serverUrl } from "./mattermost-connection.ts";

export const mattermostProtocol = defineProtocol({
  name: "mattermost",
  keys: MATTERMOST_KEYS,
  // Webhooks are Matterbridge's older way in; the API account does everything they did.
  unsupportedKeys: ["WebhookURL", "WebhookBindAddress", "SkipVersionCheck", "NickFormatter", "NicksPerRow", "Debug"],
  validate(settings) {
    const problems: string[] = [];
    const hasToken = settings.Token.trim() !== "";
    if (!hasToken && (settings.Login === "" || settings.Password === "")) {
      problems.push("set Token (a bot or personal access token), or Login and Password");
    }
    let url: URL | undefined;
    try {
      url = new URL(serverUrl(settings.Server, settings.NoTLS));
    } catch {}
    if (url === undefined || url.hostname === "") {
      problems.push(`Server must be "host" or "host:port" (got ${JSON.stringify(settings.Server)})`);
    }
    return problems;
  },
  capabilities: { uploads: true },
  create: (account, context) => new MattermostConnection(account, context),
});
