// The mattermost account's own keys, by their Matterbridge spelling and with Matterbridge's defaults.
import { key } from "../../config/key-spec.ts";
import { ALLOW_MASS_MENTIONS_DESCRIPTION } from "../mass-mentions.ts";

export const MATTERMOST_KEYS = {
  Server: key.string({
    required: true,
    example: '"chat.example.org"',
    description: 'the server: "host" or "host:port" as in Matterbridge (a full URL such as "https://host" works too)',
  }),
  Team: key.string({ required: true, example: '"myteam"', description: "the team's name, as in its URL" }),
  Login: key.string({ default: "", description: "the user name or email of the bridge's account (with Password)" }),
  Password: key.string({ default: "", secret: true, description: "the password of Login" }),
  Token: key.string({
    default: "",
    secret: true,
    description: "a personal access token or bot token, used instead of Login/Password",
  }),
  NoTLS: key.boolean({ default: false, description: "connect with http:// and ws:// instead of https:// and wss://" }),
  SkipTLSVerify: key.boolean({ default: false, description: "accept any TLS certificate (self-signed servers)" }),
  PrefixMessagesWithNick: key.boolean({
    default: false,
    description: "put the nick (RemoteNickFormat) in front of the text instead of posting under it",
  }),
  UseUserName: key.boolean({ default: false, description: "name users by their user name, not their nickname" }),
  IconURL: key.string({
    default: "",
    description: "the avatar of relayed messages when the source has none: {NICK}, {BRIDGE}, {PROTOCOL}",
  }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Mattermost" }),
  EditSuffix: key.string({ default: "", description: 'appended to edits relayed from Mattermost, e.g. " (edited)"' }),
  MessageClipped: key.string({
    default: "<clipped message>",
    description: "appended to a message cut at Mattermost's 16,383 characters",
  }),
  AllowMassMentions: key.boolean({ default: false, description: ALLOW_MASS_MENTIONS_DESCRIPTION }),
} as const;
