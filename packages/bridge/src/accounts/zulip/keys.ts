// The zulip account's own keys, by their Matterbridge spelling.
import { key } from "../../config/key-spec.ts";
import { ALLOW_MASS_MENTIONS_DESCRIPTION } from "../mass-mentions.ts";

export const ZULIP_KEYS = {
  Server: key.string({
    required: true,
    example: '"https://yourorg.zulipchat.com"',
    description: "the organization's URL",
  }),
  Login: key.string({ required: true, example: '"bridge-bot@yourorg.zulipchat.com"', description: "the bot's email" }),
  Token: key.string({ required: true, secret: true, description: "the bot's API key" }),
  SkipTLSVerify: key.boolean({ default: false, description: "accept any TLS certificate (self-signed servers)" }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Zulip" }),
  EditSuffix: key.string({ default: "", description: 'appended to edits relayed from Zulip, e.g. " (edited)"' }),
  MessageClipped: key.string({
    default: "<clipped message>",
    description: "appended to a message cut at Zulip's 10,000 characters",
  }),
  AllowMassMentions: key.boolean({ default: false, description: ALLOW_MASS_MENTIONS_DESCRIPTION }),
} as const;
