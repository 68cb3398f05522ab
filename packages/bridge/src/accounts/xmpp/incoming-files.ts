// Files people share in a room. XMPP clients (Conversations, Gajim, Dino) upload a file to their server's HTTP File
// Upload service and send its GET URL as XEP-0066 out-of-band data, with the same URL as the body so that other
// clients show a link. Each http(s) URL becomes an Extra.file entry, and a body that is only that URL is no text.
//
// The bridge fetches such a file only from the XMPP server's own hosts (its domain, a subdomain, or the Server it
// connects to): anyone in a room can name any URL, and fetching it would let them have the bridge read addresses
// only it can reach (a metadata service, the local network) and post the answer to other platforms. A file
// elsewhere (a user of another server) goes on as its link, as the api's URL-only entries do.
import { type FileInfo, fileInfo } from "../../core/files/file-info.ts";
import type { OutOfBand } from "./incoming.ts";

const MAX_NAME = 255;

/** The files of a message's out-of-band data, and its text without the body that only repeats their URL. */
export function sharedFiles(text: string, oob: readonly OutOfBand[]): { text: string; files: FileInfo[] } {
  const files: FileInfo[] = [];
  const urls = new Set<string>();
  for (const { url, desc } of oob) {
    const parsed = httpUrl(url);
    if (parsed === undefined || urls.has(url)) continue;
    urls.add(url);
    files.push(fileInfo({ Name: fileNameOf(parsed), URL: parsed.href, Comment: desc }));
  }
  return { text: urls.has(text.trim()) ? "" : text, files };
}

/** The file's name: the URL's last path segment, decoded, as one plain segment ("file" when there is none). */
function fileNameOf(url: URL): string {
  const segment = url.pathname.slice(url.pathname.lastIndexOf("/") + 1);
  let name: string;
  try {
    name = decodeURIComponent(segment);
  } catch {
    name = segment;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  const clean = [...name.replace(/[\u0000-\u001f\u007f-\u009f/\\]+/g, "_").trim()].slice(0, MAX_NAME).join("");
  return clean === "" || clean === "." || clean === ".." ? "file" : clean;
}

/** The hosts files are fetched from: the server's. */
export interface ServerHosts {
  /** The XMPP domain (the Jid's, or the Server's host when anonymous). */
  domain: string;
  /** The host of Server. */
  serverHost: string;
}

/** Whether the bridge fetches a shared file at `url`: an http(s) URL on the XMPP server's own hosts. */
export function isServerFile(url: string, hosts: ServerHosts): boolean {
  const parsed = httpUrl(url);
  if (parsed === undefined) return false;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const domain = hosts.domain.toLowerCase();
  const onDomain = domain !== "" && (host === domain || host.endsWith(`.${domain}`));
  return onDomain || host === hosts.serverHost.toLowerCase();
}

function httpUrl(text: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const http = url.protocol === "https:" || url.protocol === "http:";
  return http && url.hostname !== "" && url.username === "" && url.password === "" ? url : undefined;
}
