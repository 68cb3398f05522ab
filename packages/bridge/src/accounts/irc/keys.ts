// The irc account's own keys, by their Matterbridge spelling and with Matterbridge's defaults. MessageDelay and
// MessageQueue are core keys (every account has them); the descriptor sets IRC's defaults for them.
import { key } from "../../config/key-spec.ts";
import { DEFAULT_CLIPPED } from "./split.ts";

const DEFAULT_MESSAGE_LENGTH = 400;
/** About 40 s of a channel at the default pacing: a paste still arrives, a message with 5,000 files does not. */
const DEFAULT_MAX_LINES = 30;

export const IRC_KEYS = {
  Server: key.string({
    required: true,
    example: '"irc.libera.chat:6697"',
    description: 'the IRC server, "host:port"',
  }),
  Password: key.string({ secret: true, description: "server password (PASS)" }),
  UseTLS: key.boolean({ default: false, description: "connect with TLS" }),
  SkipTLSVerify: key.boolean({ default: false, description: "accept any TLS certificate (self-signed servers)" }),
  TLSClientCertificate: key.string({
    default: "",
    example: '"/etc/switchboard/bridgebot.pem"',
    description: "a PEM file with the bot's client certificate and its key, for CertFP; needs UseTLS",
  }),
  Bind: key.string({ default: "", description: "the local IP address to connect from (default: the system's choice)" }),
  UseSASL: key.boolean({
    default: false,
    description: "identify with SASL PLAIN as NickServNick / NickServPassword while registering",
  }),
  Nick: key.string({ required: true, example: '"bridgebot"', description: "the nick to use" }),
  RealName: key.string({ default: "", description: "the real name (gecos) shown in WHOIS; default: the nick" }),
  UserName: key.string({ default: "", description: "the user name (ident); default: the nick" }),
  NickServNick: key.string({ default: "", description: "the services bot to identify with (e.g. NickServ)" }),
  NickServPassword: key.string({ secret: true, description: "the password for NickServ or SASL" }),
  NickServUsername: key.string({ default: "", description: "the account name for QuakeNet's Q (AUTH)" }),
  Charset: key.string({
    default: "",
    description: "the channel's charset (e.g. iso-8859-1); empty: UTF-8, else Windows-1252, guessed per line",
  }),
  MessageLength: key.integer({
    default: DEFAULT_MESSAGE_LENGTH,
    min: 32,
    max: 4096,
    description: "bytes of text per IRC line, nick included; longer lines are split or clipped",
  }),
  MessageSplit: key.boolean({ default: false, description: "split long lines into several (else clip them)" }),
  MessageClipped: key.string({ default: DEFAULT_CLIPPED, description: "appended to a clipped line" }),
  MessageMaxLines: key.integer({
    default: DEFAULT_MAX_LINES,
    min: 2,
    max: 1000,
    description: "IRC lines one relayed message may take; past it the last line says how many more there were",
  }),
  RejoinDelay: key.integer({ default: 0, min: 0, max: 86_400, description: "seconds before rejoining after a kick" }),
  JoinDelay: key.integer({ default: 0, min: 0, max: 3_600_000, description: "milliseconds between channel joins" }),
  RunCommands: key.strings({
    default: [],
    description: "raw IRC lines sent after connecting, before joining; {BOTNICK} is the bot's nick",
  }),
  PingDelay: key.string({
    default: "1m",
    description: 'time between keep-alive PINGs, a Go duration ("30s", "1m", "1m30s")',
  }),
  ColorNicks: key.boolean({ default: false, description: "colour each relayed nick (mIRC colours)" }),
  StripMarkdown: key.boolean({ default: false, description: "strip Markdown from messages sent to IRC" }),
  VerboseJoinPart: key.boolean({ default: false, description: "joins/parts relayed with ident@host" }),
  NoSendJoinPart: key.boolean({ default: false, description: "do not relay this channel's joins/parts/quits" }),
  Twitch: key.boolean({
    default: false,
    description: "Twitch chat: tags, replies, deletes and Twitch's rate limit; on by itself for irc.chat.twitch.tv",
  }),
} as const;
