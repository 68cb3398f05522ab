// The keys the core reads for every account, whatever its protocol (Matterbridge's per-account gateway keys, plus
// the supervision and outbound-queue keys of Switchboard's core). Each may also be set in [general] as a default.
// A protocol's own keys live in its folder (accounts/<protocol>/); a descriptor may change these defaults.
import { key, type SettingsOf } from "./key-spec.ts";

export const CORE_KEYS = {
  RemoteNickFormat: key.string({ default: "{NICK}", description: "the username shown on this destination" }),
  StripNick: key.boolean({ default: false, description: "keep only [a-zA-Z0-9] of the nick (destination)" }),
  Label: key.string({ default: "", description: "the value of {LABEL} (source)" }),
  IgnoreNicks: key.string({ default: "", description: "whitespace-separated regexes on the username (source)" }),
  IgnoreMessages: key.string({ default: "", description: "whitespace-separated regexes on the text (source)" }),
  ReplaceMessages: key.pairs({ default: [], description: "[regex, replacement] rewrites of the text (source)" }),
  ReplaceNicks: key.pairs({ default: [], description: "[regex, replacement] rewrites of the username (source)" }),
  ExtractNicks: key.pairs({ default: [], description: "[nickRegex, extractRegex] for relay bots (source)" }),
  ShowJoinPart: key.boolean({ default: false, description: "deliver join_leave events (destination)" }),
  ShowTopicChange: key.boolean({ default: false, description: "deliver topic_change events (destination)" }),
  SyncTopic: key.boolean({ default: false, description: "deliver topic_change events (destination)" }),
  PreserveThreading: key.boolean({ default: false, description: "map reply parents to this destination's ids" }),
  // Supervision (core/supervisor.ts): reconnect delays grow from ReconnectDelay to ReconnectMaxDelay, with jitter.
  ReconnectDelay: key.integer({
    default: 1000,
    min: 1,
    max: 3_600_000,
    description: "milliseconds before the first reconnect attempt; doubles per failed attempt",
  }),
  ReconnectMaxDelay: key.integer({
    default: 60_000,
    min: 1,
    max: 86_400_000,
    description: "milliseconds: the cap of the reconnect delay",
  }),
  // Outbound queues (core/outbound-queue.ts). Matterbridge reads these two for IRC only; here every account has
  // them, and a protocol's descriptor sets its own defaults (IRC: 1300 ms and 30, as Matterbridge).
  MessageDelay: key.integer({
    default: 0,
    min: 0,
    max: 3_600_000,
    description: "minimum milliseconds between two messages the account sends",
  }),
  MessageQueue: key.integer({
    default: 100,
    min: 1,
    max: 1_000_000,
    description: "messages held per destination channel (while paced or disconnected); more are dropped",
  }),
} as const;

export type CoreSettings = SettingsOf<typeof CORE_KEYS>;

/** Keys of [general] alone: they concern the whole process, not an account. */
export const GENERAL_ONLY_KEYS = {
  ShutdownTimeout: key.integer({
    default: 5,
    min: 1,
    max: 3600,
    description: "seconds a stop (SIGTERM/SIGINT) waits for work in progress before cutting it and exiting 1",
  }),
  StateFile: key.string({
    description:
      'the file holding queued messages, the id map and unread api messages across restarts; default <config name>.state.db beside the config; "" keeps none',
  }),
  StatusAddress: key.string({
    default: "",
    description: 'where GET /health and GET /metrics are served, "host:port" (port 0: any free port); off when empty',
  }),
  // Files (core/files/), Matterbridge's [general] keys and defaults.
  MediaDownloadSize: key.integer({
    default: 1_000_000,
    min: 0,
    max: 2 ** 40,
    description: "bytes: larger files are not downloaded nor relayed (their link still is)",
  }),
  MediaDownloadBlackList: key.strings({
    default: [],
    description: "regexes on file names: matching files are not downloaded nor relayed (their link still is)",
  }),
  MediaServerUpload: key.string({
    default: "",
    description: "base URL files are PUT to (<url>/<sha>/<name>); destinations then get MediaServerDownload links",
  }),
  MediaDownloadPath: key.string({
    default: "",
    description: "folder files are written below (<path>/<sha>/<name>) when MediaServerUpload is not set",
  }),
  MediaServerDownload: key.string({
    default: "",
    description: "base URL of the stored files, as linked to destinations (<url>/<sha>/<name>)",
  }),
} as const;

export type GeneralOnlySettings = SettingsOf<typeof GENERAL_ONLY_KEYS>;
