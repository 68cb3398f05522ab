// The slack account's own keys, by their Matterbridge spelling and with Matterbridge's defaults, plus AppToken (Socket
// Mode, how the account receives) and ApiURL (to point it at another server: a compatible service, or the tests'
// simulator).
import { key } from "../../config/key-spec.ts";

const SLACK_API_URL = "https://slack.com/api/";

export const SLACK_KEYS = {
  Token: key.string({
    required: true,
    secret: true,
    example: '"xoxb-1234-5678-your-bot-token"',
    description: "the app's Bot User OAuth Token (api.slack.com/apps → your app → OAuth & Permissions)",
  }),
  AppToken: key.string({
    required: true,
    secret: true,
    example: '"xapp-1-A0123-4567-your-app-level-token"',
    description: "an app-level token with connections:write (Basic Information → App-Level Tokens), for Socket Mode",
  }),
  ApiURL: key.string({
    default: SLACK_API_URL,
    description: "the Web API's base URL, ending in /api/; default Slack's own",
  }),
  IconURL: key.string({
    default: "",
    description: "the avatar of relayed messages when the source has none: {NICK}, {BRIDGE}, {LABEL}, {PROTOCOL}",
  }),
  PrefixMessagesWithNick: key.boolean({
    default: false,
    description: "put the nick (RemoteNickFormat) in front of the text, and post under the app's own name",
  }),
  UseFullName: key.boolean({ default: false, description: "name Slack users by their full name" }),
  UseUserName: key.boolean({
    default: false,
    description: "name Slack users by their user name (handle) instead of their display name",
  }),
  EditDisable: key.boolean({ default: false, description: "do not relay edits made on Slack" }),
  EditSuffix: key.string({ default: "", description: 'appended to edits relayed from Slack, e.g. " (edited)"' }),
  MessageClipped: key.string({
    default: "<clipped message>",
    description: "appended to a message cut at 40,000 characters",
  }),
} as const;
