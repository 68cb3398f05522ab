export {
  type BotAction as DiscordBotAction,
  type DiscordHuman,
  type DiscordSimulator,
  type DiscordSimulatorOptions,
  Intent as DiscordIntent,
  type MessageObject as DiscordMessageObject,
  type RateLimitOptions as DiscordRateLimitOptions,
  startDiscordSimulator,
} from "./discord.ts";
export { Inbox } from "./inbox.ts";
export { connectIrcUser, type IrcEvent, type IrcUser, type IrcUserOptions } from "./irc-user.ts";
export {
  type FakeMatrix,
  type FakeMatrixOptions,
  type MatrixHuman,
  type MatrixRoomEvent,
  type RateLimitOptions as MatrixRateLimitOptions,
  type RecordedMatrixRequest,
  startFakeMatrix,
} from "./matrix.ts";
export {
  type MattermostBotAction,
  type MattermostHuman,
  type MattermostPost,
  type MattermostSimulator,
  type MattermostUserObject,
  startMattermostSimulator,
} from "./mattermost.ts";
export {
  type GraphUser,
  startTeamsSimulator,
  type TeamsBotAction,
  type TeamsChatMessage,
  type TeamsHuman,
  type TeamsSimulator,
  type TeamsSimulatorOptions,
} from "./msteams.ts";
export { connectMumbleUser, type MumbleText, type MumbleUser, type MumbleUserOptions } from "./mumble-user.ts";
export { type MurmurOptions, type MurmurServer, murmurConfig, startMurmur } from "./murmur.ts";
export {
  startTalkSimulator,
  type TalkBotAction,
  type TalkHuman,
  type TalkMessage,
  type TalkRichObject,
  type TalkSimulator,
} from "./nctalk.ts";
export { type NgircdOptions, type NgircdServer, ngircdConfig, startNgircd } from "./ngircd.ts";
export {
  type ProsodyOptions,
  type ProsodyServer,
  type ProsodyUploads,
  prosodyConfig,
  startProsody,
} from "./prosody.ts";
export {
  type RocketChatBotAction,
  type RocketChatHuman,
  type RocketChatMessage,
  type RocketChatOutgoingCall,
  type RocketChatSimulator,
  type RocketChatUser,
  startRocketChatSimulator,
} from "./rocketchat.ts";
export { selfSignedCertificate } from "./server-files.ts";
export {
  type SlackApp,
  type SlackBotAction,
  type SlackFileObject,
  type SlackHuman,
  type SlackMessage,
  type SlackSimulator,
  type SlackUserObject,
  startSlackSimulator,
} from "./slack.ts";
export { type SynapseServer, startSynapse, synapseConfig } from "./synapse.ts";
export { type SynapseRoot, synapseRoot } from "./synapse-root.ts";
export { type SynapseUser, synapseUser, type TimelineEvent } from "./synapse-user.ts";
export {
  type BotAction as TelegramBotAction,
  type MessageEntity,
  type SayOptions,
  type SimulatedBot,
  startTelegramSimulator,
  type TelegramSimulator,
  type TelegramUser,
  type TelegramUserObject,
  type VisibleMessage,
} from "./telegram.ts";
export {
  parseIrcLine,
  startTwitchIrc,
  type TwitchChatter,
  type TwitchIrc,
  type TwitchIrcOptions,
  type TwitchSent,
} from "./twitch-irc.ts";
export { type FileToShare, type SharedFile, sendOutOfBand, uploadFile, watchSharedFiles } from "./xmpp-files.ts";
export {
  connectXmppUser,
  type JoinRoomOptions,
  type RoomMessage,
  type XmppUser,
  type XmppUserOptions,
} from "./xmpp-user.ts";
export {
  startZulipSimulator,
  type ZulipBotAction,
  type ZulipHuman,
  type ZulipMessage,
  type ZulipSimulator,
  type ZulipUser,
} from "./zulip.ts";
