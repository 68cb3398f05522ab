// Source-side filters and rewrites, applied once per received message (not once per gateway: Matterbridge
// compounds ReplaceMessages when the source is on several gateways).
import { Events, type Message } from "../message.ts";
import type { DestinationRules, SourceRules } from "./rules.ts";

/** Events the core consumes itself and never delivers (posting get_channel_members crashes Matterbridge). */
export const INTERNAL_EVENTS: ReadonlySet<string> = new Set([
  Events.getChannelMembers,
  Events.failure,
  Events.rejoinChannels,
  Events.apiConnected,
]);

function hasAttachment(message: Message): boolean {
  const extra = message.Extra;
  if (extra === null) return false;
  return ["file", "attachments", "file_failure_size"].some((key) => (extra[key]?.length ?? 0) > 0);
}

/** Whether the message is dropped before routing: empty text, IgnoreNicks, IgnoreMessages. */
export function isIgnored(message: Message, rules: SourceRules): boolean {
  const textless = message.event === Events.userTyping || message.event === Events.msgDelete;
  if (message.text === "" && !textless && !hasAttachment(message)) return true;
  for (const pattern of rules.ignoreNicks) if (pattern.test(message.username)) return true;
  for (const pattern of rules.ignoreMessages) if (pattern.test(message.text)) return true;
  return false;
}

/** ExtractNicks then ReplaceMessages, on the message itself (the router owns it at this point). */
export function rewriteAtSource(message: Message, rules: SourceRules): void {
  for (const { nick, extract } of rules.extractNicks) {
    if (!nick.test(message.username)) continue;
    const found = extract.exec(message.text);
    if (found?.[1] !== undefined) {
      message.username = found[1];
      message.text = message.text.replace(found[0], "");
      break;
    }
  }
  for (const { pattern, replacement } of rules.replaceMessages) {
    message.text = message.text.replace(pattern, replacement);
  }
}

/** Per-destination event switches (ShowJoinPart, ShowTopicChange/SyncTopic, typing support). */
export function destinationAccepts(
  event: string,
  rules: DestinationRules,
  capabilities: { userTyping: boolean; notices: boolean },
): boolean {
  switch (event) {
    case "":
    case Events.userAction:
      return true;
    case Events.joinLeave:
      return rules.showJoinPart;
    case Events.topicChange:
      return rules.showTopicChange;
    case Events.userTyping:
      return capabilities.userTyping;
    case Events.noticeIrc:
      return capabilities.notices;
    case Events.avatarDownload:
      return false;
    default:
      return true;
  }
}

/** The username a destination shows before RemoteNickFormat: StripNick (destination) then ReplaceNicks (source). */
export function destinationNick(username: string, source: SourceRules, destination: DestinationRules): string {
  let nick = destination.stripNick ? username.replace(/[^a-zA-Z0-9]+/g, "") : username;
  for (const { pattern, replacement } of source.replaceNicks) nick = nick.replace(pattern, replacement);
  return nick;
}
