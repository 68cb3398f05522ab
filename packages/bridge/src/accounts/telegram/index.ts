// The `telegram` protocol: a Telegram bot on grammy's Bot API client, receiving by long polling (getUpdates).
import { defineProtocol } from "../../config/descriptor.ts";
import { httpUrlProblem } from "../http-url.ts";
import { lazyConnection } from "../lazy-connection.ts";
import { MESSAGE_FORMATS, TELEGRAM_KEYS } from "./keys.ts";

export const telegramProtocol = defineProtocol({
  name: "telegram",
  keys: TELEGRAM_KEYS,
  unsupportedKeys: ["UseInsecureURL", "MediaConvertTgs", "MediaConvertWebPToPNG"],
  capabilities: { uploads: true },
  validate(settings) {
    const problems: string[] = [];
    if (!/^\d+:[A-Za-z0-9_-]+$/.test(settings.Token.trim())) {
      problems.push('Token must be the token @BotFather gave the bot, "<digits>:<letters>"');
    }
    if (!MESSAGE_FORMATS.some((format) => format.toLowerCase() === settings.MessageFormat.toLowerCase())) {
      problems.push(
        `MessageFormat must be one of "", "HTML", "HTMLNick", "Markdown", "MarkdownV2" (got ${JSON.stringify(settings.MessageFormat)})`,
      );
    }
    const badUrl = httpUrlProblem("ApiURL", settings.ApiURL, "https://api.telegram.org");
    if (badUrl) problems.push(badUrl);
    return problems;
  },
  // Its client library is loaded on the first connect (see lazy-connection.ts).
  create: lazyConnection(() =>
    import("./telegram-connection.ts").then((m) => (account, context) => new m.TelegramConnection(account, context)),
  ),
});
