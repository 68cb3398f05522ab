// Files for an XMPP human in tests: sharing one as Conversations, Gajim and Dino do (a slot from the server's HTTP
// File Upload service, XEP-0363, the PUT with the slot's headers, then a groupchat message whose body and XEP-0066
// out-of-band URL are the GET URL), and recording the files others shared in the rooms.
import { xml } from "@xmpp/client";
import type { Element } from "@xmpp/xml";
import { Inbox } from "./inbox.ts";
import type { XmppUser } from "./xmpp-user.ts";

const NS_UPLOAD = "urn:xmpp:http:upload:0";
const NS_OOB = "jabber:x:oob";

export interface SharedFile {
  /** The room's bare JID. */
  room: string;
  nick: string;
  body: string;
  /** The out-of-band URL. */
  url: string;
}

/** Every groupchat message carrying an out-of-band URL that `user` receives from now on (reflections included). */
export function watchSharedFiles(user: XmppUser): Inbox<SharedFile> {
  const files = new Inbox<SharedFile>();
  user.xmpp.on("stanza", (stanza: Element) => {
    if (!stanza.is("message") || stanza.attrs.type !== "groupchat") return;
    const url = stanza.getChild("x", NS_OOB)?.getChildText("url");
    if (url === null || url === undefined) return;
    const from = String(stanza.attrs.from ?? "");
    const slash = from.indexOf("/");
    files.push({
      room: slash < 0 ? from : from.slice(0, slash),
      nick: slash < 0 ? "" : from.slice(slash + 1),
      body: stanza.getChildText("body") ?? "",
      url,
    });
  });
  return files;
}

export interface FileToShare {
  /** The upload service's JID (ProsodyServer.uploads.domain). */
  service: string;
  name: string;
  data: Uint8Array;
  contentType: string;
}

/** Uploads the file to the service; resolves with its GET URL. Bounded by `timeoutMs` (default 10 s). */
export async function uploadFile(user: XmppUser, file: FileToShare, timeoutMs = 10_000): Promise<string> {
  const reply = await user.xmpp.iqCaller.request(
    xml(
      "iq",
      { type: "get", to: file.service },
      xml("request", {
        xmlns: NS_UPLOAD,
        filename: file.name,
        size: String(file.data.length),
        "content-type": file.contentType,
      }),
    ),
    timeoutMs,
  );
  const slot = reply.getChild("slot", NS_UPLOAD);
  const put = slot?.getChild("put");
  const putUrl = put?.attrs.url;
  const getUrl = slot?.getChild("get")?.attrs.url;
  if (typeof putUrl !== "string" || typeof getUrl !== "string") throw new Error(`no slot in ${reply.toString()}`);
  const headers: Record<string, string> = { "content-type": file.contentType };
  for (const header of put?.getChildren("header") ?? []) headers[String(header.attrs.name)] = header.text();
  const response = await fetch(putUrl, {
    method: "PUT",
    headers,
    body: file.data,
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`the PUT of ${file.name} answered HTTP ${response.status}`);
  return getUrl;
}

/** Sends a groupchat message with `url` as out-of-band data and, as clients do, as the body (unless given). */
export async function sendOutOfBand(user: XmppUser, room: string, url: string, body = url): Promise<void> {
  await user.xmpp.send(
    xml(
      "message",
      { to: room, type: "groupchat" },
      xml("body", {}, body),
      xml("x", { xmlns: NS_OOB }, xml("url", {}, url)),
    ),
  );
}
