// The rocketchat account's own keys, by their Matterbridge spelling and with Matterbridge's defaults.
import { key } from "../../config/key-spec.ts";
import { ALLOW_MASS_MENTIONS_DESCRIPTION } from "../mass-mentions.ts";

export const ROCKETCHAT_KEYS = {
  Server: key.string({
    required: true,
    example: '"https://chat.example.org"',
    description: 'the server\'s URL, with http:// or https:// (or "host:port", with NoTLS for http)',
  }),
  Login: key.string({ required: true, example: '"bridgebot"', description: "the bot user's name or email" }),
  Password: key.string({ required: true, secret: true, description: "the bot user's password" }),
  Nick: key.string({ default: "", description: "the bot's user name (its own messages are known by its user id)" }),
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
