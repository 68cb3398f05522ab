// The `mattermost` protocol: a Mattermost account (a bot account, or a user) on API v4 and the WebSocket API.
import { defineProtocol } from "../../config/descriptor.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { MATTERMOST_KEYS } from "./keys.ts";
import { serverUrl } from "./server-url.ts";

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
  // Its client code is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./mattermost-connection.ts").then(
      (m) => (account, context) => new m.MattermostConnection(account, context),
    ),
  ),
});
