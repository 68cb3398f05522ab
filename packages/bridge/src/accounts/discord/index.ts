// The `discord` protocol: a Discord bot on discord.js in one server (guild), relaying its gateway channels
// (discord-connection.ts), optionally through webhooks so each message shows its sender's name and avatar.
import { defineProtocol } from "../../config/descriptor.ts";
import { httpUrlProblem } from "../http-url.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { DISCORD_KEYS } from "./keys.ts";

export const discordProtocol = defineProtocol({
  name: "discord",
  keys: DISCORD_KEYS,
  // Discord shows typing notifications (Matterbridge: slack and discord).
  capabilities: { userTyping: true, uploads: true },
  unsupportedKeys: ["DebugLevel"],
  validate(settings) {
    const problems: string[] = [];
    if (settings.Server.trim() === "" || settings.Server.trim() === "ID:") {
      problems.push('Server must be the Discord server\'s name or "ID:<id>"');
    }
    if (settings.Token.trim() === "") problems.push("Token is empty; set the bot's token from the Developer Portal");
    if (settings.WebhookURL !== undefined && settings.WebhookURL !== "") {
      problems.push(
        "WebhookURL is no longer an account setting (as in Matterbridge): use AutoWebhooks = true, or set WebhookURL " +
          "per channel in [gateway.inout.options]",
      );
    }
    const badUrl = httpUrlProblem("ApiURL", settings.ApiURL, "https://discord.com/api");
    if (badUrl) problems.push(badUrl);
    return problems;
  },
  // Its client library is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./discord-connection.ts").then((m) => (account, context) => new m.DiscordConnection(account, context)),
  ),
});
