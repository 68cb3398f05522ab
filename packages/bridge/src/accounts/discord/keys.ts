// The discord account's own keys, by their Matterbridge spelling and with Matterbridge's defaults, plus ApiURL to
// point the account at another server (a compatible service, or the tests' simulator).
import { key } from "../../config/key-spec.ts";

const DISCORD_API_URL = "https://discord.com/api";

export const DISCORD_KEYS = {
  Token: key.string({
    required: true,
    secret: true,
    example: '"MTA5...your-bot-token"',
    description: "the bot's token (Developer Portal → your application → Bot → Reset Token)",
  }),
  Server: key.string({
    required: true,
    example: '"My Server"',
    description: 'the Discord server (guild): its name, or its id as "ID:1234..." or "1234..."',
  }),
  ApiURL: key.string({
    default: DISCORD_API_URL,
    description: "the base API URL (the gateway URL comes from its /gateway/bot); default Discord's own",
  }),
  AllowMention: key.strings({
    description: 'which mentions may ping: any of "everyone" (also @here), "roles", "users"; unset: users only',
  }),
  ShowEmbeds: key.boolean({ default: false, description: "relay the title, description and URL of embeds" }),
  NoSendJoinPart: key.boolean({ default: false, description: "do not relay members joining and leaving the server" }),
  UseLocalAvatar: key.strings({
    default: [],
    description: "source protocols or accounts whose users get the avatar of the Discord member with the same name",
  }),
  UseUserName: key.boolean({ default: false, description: "relay the user name instead of the server nickname" }),
  UseDiscriminator: key.boolean({ default: false, description: "with UseUserName, append #discriminator (old tags)" }),
  AutoWebhooks: key.boolean({
    default: false,
    description: "send through a webhook per channel (found or created; needs Manage Webhooks), showing each nick",
  }),
  WebhookURL: key.string({
    description: "removed from the account section (as in Matterbridge): set it per channel in [gateway.inout.options]",
  }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Discord" }),
  EditSuffix: key.string({
    default: "",
    description: 'appended to edited messages relayed from Discord, e.g. " (edited)"',
  }),
  MessageClipped: key.string({ default: "<clipped message>", description: "appended to a clipped message" }),
  MessageSplitMaxCount: key.integer({
    default: 1,
    min: 0,
    max: 10,
    description: "split a long message into at most this many Discord messages before clipping (0 means 1)",
  }),
  ShowUserTyping: key.boolean({ default: false, description: "relay typing notifications both ways" }),
} as const;
