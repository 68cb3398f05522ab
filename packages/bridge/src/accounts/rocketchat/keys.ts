// The rocketchat account's own keys, by their Matterbridge spelling and with Matterbridge's defaults. Server, Login
// and Password are needed by the API mode only; the webhook mode (WebhookURL, WebhookBindAddress) can do without
// them (modes.ts says which combinations work).
import { key } from "../../config/key-spec.ts";
import { ALLOW_MASS_MENTIONS_DESCRIPTION } from "../mass-mentions.ts";

export const ROCKETCHAT_KEYS = {
  Server: key.string({
    default: "",
    description: 'the server\'s URL, with http:// or https:// (or "host:port", with NoTLS for http)',
  }),
  Login: key.string({ default: "", description: "the bot user's name or email" }),
  Password: key.string({ default: "", secret: true, description: "the bot user's password" }),
  WebhookURL: key.string({
    default: "",
    secret: true,
    description: "an incoming webhook's URL: messages are posted through it instead of the bot user",
  }),
  WebhookBindAddress: key.string({
    default: "",
    description: 'where to listen for an outgoing webhook\'s calls, e.g. "0.0.0.0:9999": messages are read from them',
  }),
  Token: key.string({
    default: "",
    secret: true,
    description: "the outgoing webhook's token: calls with another token are refused",
  }),
  Nick: key.string({
    default: "",
    description: "the bot's user name, or the incoming webhook's \"Post as\" user: its messages are not relayed",
  }),
  NoTLS: key.boolean({ default: false, description: "http:// and ws:// for a Server given as host:port" }),
  SkipTLSVerify: key.boolean({ default: false, description: "accept any TLS certificate (self-signed servers)" }),
  PrefixMessagesWithNick: key.boolean({
    default: false,
    description: "put the nick (RemoteNickFormat) in front of the text instead of posting under it (alias)",
  }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Rocket.Chat" }),
  EditSuffix: key.string({ default: "", description: 'appended to edits relayed from Rocket.Chat, e.g. " (edited)"' }),
  MessageClipped: key.string({
    default: "<clipped message>",
    description: "appended to a message cut at Rocket.Chat's 5,000 characters",
  }),
  AllowMassMentions: key.boolean({ default: false, description: ALLOW_MASS_MENTIONS_DESCRIPTION }),
} as const;
