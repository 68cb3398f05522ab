// The `telegram` protocol: a Telegram bot on grammy's Bot API client, receiving by long polling (getUpdates).
import { defineProtocol } from "../../config/descriptor.ts";
import { httpUrlProblem } from "../http-url.ts";
import { MESSAGE_FORMATS, TELEGRAM_KEYS } from "./keys.ts";
import { TelegramConnection } from "./telegram-connection.ts";

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
  create: (account, context) => new TelegramConnection(account, context),
});
