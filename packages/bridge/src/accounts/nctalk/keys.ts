// The nctalk account's own keys, by their Matterbridge spelling and with Matterbridge's defaults.
import { key } from "../../config/key-spec.ts";
import { ALLOW_MASS_MENTIONS_DESCRIPTION } from "../mass-mentions.ts";

export const NCTALK_KEYS = {
  Server: key.string({
    required: true,
    example: '"https://cloud.example.org"',
    description: "the Nextcloud server's URL",
  }),
  Login: key.string({
    required: true,
    example: '"bridgebot"',
    description: "the Nextcloud user the bridge signs in as",
  }),
  Password: key.string({
    required: true,
    secret: true,
    example: '"xxxxx-xxxxx-xxxxx-xxxxx-xxxxx"',
    description: "an app password of Login (Settings → Security → Devices & sessions)",
  }),
  GuestSuffix: key.string({
    default: " (Guest)",
    description: "appended to the names of guests (users without an account)",
  }),
  SeparateDisplayName: key.boolean({
    default: false,
    description: "send the nick as the message's display name (actorDisplayName) instead of in front of the text",
  }),
  SkipTLSVerify: key.boolean({ default: false, description: "accept any TLS certificate (self-signed servers)" }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Talk" }),
  EditSuffix: key.string({ default: "", description: 'appended to edits relayed from Talk, e.g. " (edited)"' }),
  MessageClipped: key.string({
    default: "<clipped message>",
    description: "appended to a message cut at Talk's 32,000 characters",
  }),
  AllowMassMentions: key.boolean({ default: false, description: ALLOW_MASS_MENTIONS_DESCRIPTION }),
} as const;
