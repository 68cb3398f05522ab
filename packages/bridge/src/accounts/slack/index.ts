// The `slack` protocol: a Slack app, receiving through Socket Mode and sending through the Web API.
import { defineProtocol } from "../../config/descriptor.ts";
import { httpUrlProblem } from "../http-url.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { SLACK_KEYS } from "./keys.ts";

export const slackProtocol = defineProtocol({
  name: "slack",
  keys: SLACK_KEYS,
  // Outgoing/incoming webhooks and legacy (non-bot) tokens are Matterbridge's older ways in; Slack no longer lets
  // new apps use the RTM API those tokens need.
  unsupportedKeys: ["WebhookURL", "WebhookBindAddress", "ShowUserTyping", "Debug"],
  capabilities: { uploads: true },
  validate(settings) {
    const problems: string[] = [];
    if (!settings.Token.trim().startsWith("xoxb-")) {
      problems.push(
        'Token must be the app\'s Bot User OAuth Token, "xoxb-..." (legacy and user tokens are not supported)',
      );
    }
    if (!settings.AppToken.trim().startsWith("xapp-")) {
      problems.push('AppToken must be an app-level token, "xapp-..." (Basic Information → App-Level Tokens)');
    }
    const badUrl = httpUrlProblem("ApiURL", settings.ApiURL, "https://slack.com/api/");
    if (badUrl) problems.push(badUrl);
    return problems;
  },
  // Its client library is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./slack-connection.ts").then((m) => (account, context) => new m.SlackConnection(account, context)),
  ),
});
