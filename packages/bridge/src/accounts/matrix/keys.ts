// The matrix account's own keys, by their Matterbridge spelling and with Matterbridge's defaults (Server defaults to
// the public homeserver here; Matterbridge requires it).
import { key } from "../../config/key-spec.ts";
import { ALLOW_MASS_MENTIONS_DESCRIPTION } from "../mass-mentions.ts";

const DEFAULT_SERVER = "https://matrix.org";

export const MATRIX_KEYS = {
  Server: key.string({
    default: DEFAULT_SERVER,
    description: 'the homeserver\'s client API URL, e.g. "https://matrix.example.org"',
  }),
  Login: key.string({ default: "", description: "the bot's user name (or full MxID) for a password login" }),
  Password: key.string({ secret: true, description: "the bot's password (with Login)" }),
  MxID: key.string({ default: "", description: 'the bot\'s user id, e.g. "@bridgebot:example.org" (with Token)' }),
  Token: key.string({ secret: true, description: "an access token of the bot (instead of Login/Password)" }),
  NoHomeServerSuffix: key.boolean({
    default: false,
    description: 'relay "alice" instead of "alice:example.org" when a user has no display name',
  }),
  HTMLDisable: key.boolean({ default: false, description: "send plain text only (no formatted_body)" }),
  UseUserName: key.boolean({ default: false, description: "relay the user id instead of the display name" }),
  KeepQuotedReply: key.boolean({
    default: false,
    description: 'keep the quoted lines ("> ...") a Matrix reply starts with',
  }),
  AllowMassMentions: key.boolean({ default: false, description: ALLOW_MASS_MENTIONS_DESCRIPTION }),
  MessageClipped: key.string({
    default: "<clipped message>",
    description: "appended to a message clipped to fit one Matrix event (64 KiB)",
  }),
} as const;
