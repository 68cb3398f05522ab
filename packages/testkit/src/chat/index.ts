export { Inbox } from "./inbox.ts";
export { connectIrcUser, type IrcEvent, type IrcUser, type IrcUserOptions } from "./irc-user.ts";
export {
  type FakeMatrix,
  type FakeMatrixOptions,
  type MatrixHuman,
  type MatrixRoomEvent,
  type RateLimitOptions,
  type RecordedMatrixRequest,
  startFakeMatrix,
} from "./matrix.ts";
export { type NgircdOptions, type NgircdServer, ngircdConfig, startNgircd } from "./ngircd.ts";
export { type ProsodyOptions, type ProsodyServer, prosodyConfig, startProsody } from "./prosody.ts";
export {
  connectXmppUser,
  type JoinRoomOptions,
  type RoomMessage,
  type XmppUser,
  type XmppUserOptions,
} from "./xmpp-user.ts";
