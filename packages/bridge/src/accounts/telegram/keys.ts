// The telegram account's own keys, by their Matterbridge spelling and with Matterbridge's defaults, plus ApiURL (the
// Bot API root, for self-hosted Bot API servers and tests).
import { key } from "../../config/key-spec.ts";
import { DEFAULT_CLIPPED } from "./outbound.ts";

const PUBLIC_API_URL = "https://api.telegram.org";
const DEFAULT_QUOTE_FORMAT = "{MESSAGE} (re @{QUOTENICK}: {QUOTEMESSAGE})";
export const MESSAGE_FORMATS = ["", "HTML", "HTMLNick", "Markdown", "MarkdownV2"] as const;

export const TELEGRAM_KEYS = {
  Token: key.string({
    required: true,
    secret: true,
    example: '"123456789:AAE-your-token-from-BotFather"',
    description: "the bot's token, from @BotFather",
  }),
  ApiURL: key.string({
    default: PUBLIC_API_URL,
    description: "the Bot API root (a self-hosted telegram-bot-api server); default: the public one",
  }),
  MessageFormat: key.string({
    default: "",
    description: 'how text is sent: "" (plain), "HTML", "HTMLNick", "Markdown" or "MarkdownV2"',
  }),
  DisableWebPagePreview: key.boolean({ default: false, description: "no link previews under relayed messages" }),
  UseFirstName: key.boolean({ default: false, description: "name users by their first name (else @username)" }),
  UseFullName: key.boolean({ default: false, description: "name users by first and last name (else @username)" }),
  QuoteDisable: key.boolean({ default: false, description: "do not add the quoted message to a relayed reply" }),
  QuoteFormat: key.string({
    default: DEFAULT_QUOTE_FORMAT,
    description: "how a reply shows what it quotes: {MESSAGE}, {QUOTENICK}, {QUOTEMESSAGE}",
  }),
  QuoteLengthLimit: key.integer({
    default: 0,
    min: 0,
    max: 4096,
    description: "characters of the quoted message kept (0: all)",
  }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Telegram" }),
  EditSuffix: key.string({ default: "", description: 'appended to relayed edits, e.g. " (edited)"' }),
  MessageClipped: key.string({
    default: DEFAULT_CLIPPED,
    description: "appended to a message cut at Telegram's 4,096 characters",
  }),
} as const;
