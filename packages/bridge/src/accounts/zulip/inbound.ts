// What a Zulip message's Markdown means for the other platforms: a `/me` message is an action (Zulip shows it as
// one), and links to the organization's uploads (`[name](/user_uploads/...)`, relative in Zulip's Markdown) become
// absolute, so they lead somewhere from another platform. Pure.

export interface InboundText {
  text: string;
  action: boolean;
}

const ME = /^\/me\s+/;
const UPLOAD_LINK = /\]\((\/user_uploads\/[^)\s]+)\)/g;

export function inboundText(content: string, serverUrl: string): InboundText {
  const absolute = content.replace(UPLOAD_LINK, (_match, path: string) => `](${serverUrl}${path})`);
  if (ME.test(absolute)) return { text: absolute.replace(ME, ""), action: true };
  return { text: absolute, action: false };
}

/** An avatar URL as other platforms can load it (Zulip may give one relative to the organization). */
export function absoluteUrl(url: string, serverUrl: string): string {
  if (url === "" || /^https?:\/\//i.test(url)) return url;
  return `${serverUrl}${url.startsWith("/") ? "" : "/"}${url}`;
}
