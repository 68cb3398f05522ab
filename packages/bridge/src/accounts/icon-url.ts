// Matterbridge's IconURL key (slack, mattermost): the avatar a relayed message is posted with when its source has
// none, a template with {NICK} (URL-encoded: nicks like "[irc] <ivan>" would break the URL), {BRIDGE} (the source
// account's name) and {PROTOCOL}.
import type { Message } from "../message.ts";

export function iconUrl(template: string, message: Message): string {
  if (template === "") return "";
  const [protocol = "", ...name] = message.account.split(".");
  return template
    .replaceAll("{NICK}", encodeURIComponent(message.username.trim()))
    .replaceAll("{BRIDGE}", name.join("."))
    .replaceAll("{PROTOCOL}", message.protocol || protocol);
}
