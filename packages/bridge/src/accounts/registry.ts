// The protocols the bridge knows. A new protocol is one folder under accounts/ exporting a descriptor from its
// index.ts, plus one line here.
import { ProtocolRegistry } from "../config/descriptor.ts";
import { apiProtocol } from "./api/index.ts";
import { discordProtocol } from "./discord/index.ts";
import { ircProtocol } from "./irc/index.ts";
import { matrixProtocol } from "./matrix/index.ts";
import { mattermostProtocol } from "./mattermost/index.ts";
import { msteamsProtocol } from "./msteams/index.ts";
import { mumbleProtocol } from "./mumble/index.ts";
import { nctalkProtocol } from "./nctalk/index.ts";
import { rocketchatProtocol } from "./rocketchat/index.ts";
import { slackProtocol } from "./slack/index.ts";
import { telegramProtocol } from "./telegram/index.ts";
import { xmppProtocol } from "./xmpp/index.ts";
import { zulipProtocol } from "./zulip/index.ts";

export const PROTOCOLS = new ProtocolRegistry([
  apiProtocol,
  discordProtocol,
  ircProtocol,
  matrixProtocol,
  mattermostProtocol,
  msteamsProtocol,
  mumbleProtocol,
  nctalkProtocol,
  rocketchatProtocol,
  slackProtocol,
  telegramProtocol,
  xmppProtocol,
  zulipProtocol,
]); // biome-ignore format: one protocol per line
