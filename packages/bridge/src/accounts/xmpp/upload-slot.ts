// An HTTP File Upload slot (XEP-0363 §4): the request names the file (name, size, content type); the reply gives a
// PUT URL with the headers to send, and the GET URL people download it from. The reply comes from the server and is
// posted to rooms, so it is checked: http(s) URLs without credentials, and only the headers XEP-0363 allows
// (Authorization, Cookie, Expires), none able to break out of its line.
import xml, { type Element } from "@xmpp/xml";
import { NS } from "./namespaces.ts";

export interface UploadSlot {
  putUrl: string;
  getUrl: string;
  /** The headers to send with the PUT (allowed ones only), by their canonical names. */
  headers: Record<string, string>;
}

/** The headers a slot may ask for (XEP-0363 §4: others MUST be ignored), by lower-cased name. */
const ALLOWED_HEADERS: Record<string, string> = {
  authorization: "Authorization",
  cookie: "Cookie",
  expires: "Expires",
};
const MAX_URL = 8192;
const MAX_HEADER = 8192;
/** Characters of a file name sent; servers refuse long ones (Prosody keeps it in a URL path). */
const MAX_FILENAME = 200;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const CONTROLS = /[\u0000-\u001f\u007f]/;

export interface SlotFile {
  name: string;
  size: number;
  mediaType: string;
}

/** The file's name as the slot asks for it: one path segment of printable characters, never empty. */
export function slotFilename(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  const clean = name.replace(/[\u0000-\u001f\u007f/\\]+/g, "_").trim();
  const short = [...clean].slice(0, MAX_FILENAME).join("");
  return short === "" || short === "." || short === ".." ? "file" : short;
}

/** The <request/> of a slot for `file`. */
export function slotRequest(file: SlotFile): Element {
  return xml("request", {
    xmlns: NS.httpUpload,
    filename: slotFilename(file.name),
    size: String(file.size),
    "content-type": file.mediaType,
  });
}

/** The slot in a reply, or undefined when it has none usable. */
export function parseSlot(reply: Element): UploadSlot | undefined {
  const slot = reply.getChild("slot", NS.httpUpload);
  const put = slot?.getChild("put");
  const putUrl = httpUrl(put?.attrs["url"]);
  const getUrl = httpUrl(slot?.getChild("get")?.attrs["url"]);
  if (put === undefined || putUrl === undefined || getUrl === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const header of put.getChildren("header")) {
    const name = header.attrs["name"];
    const canonical = typeof name === "string" ? ALLOWED_HEADERS[name.toLowerCase()] : undefined;
    if (canonical === undefined || canonical in headers) continue;
    const value = header.text().trim();
    if (value === "" || value.length > MAX_HEADER || CONTROLS.test(value)) continue;
    headers[canonical] = value;
  }
  return { putUrl, getUrl, headers };
}

/** An http(s) URL without credentials, as its normal text; undefined for anything else. */
function httpUrl(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_URL) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  if (url.hostname === "" || url.username !== "" || url.password !== "") return undefined;
  return url.href;
}

/** Why a slot request failed, for a log line: the error's condition and text (a refusal), or what went wrong. */
export function slotFailure(error: unknown): string {
  if (typeof error !== "object" || error === null) return typeof error === "string" ? error : "an unknown failure";
  const { name, condition, text, application, message } = error as {
    name?: unknown;
    condition?: unknown;
    text?: unknown;
    application?: unknown;
    message?: unknown;
  };
  if (name === "TimeoutError") return "no answer to the slot request";
  if (name !== "StanzaError" || typeof condition !== "string") {
    return typeof message === "string" ? message : "an unknown failure";
  }
  const said = typeof text === "string" && text !== "" ? `: ${text}` : "";
  const limit = maxFromTooLarge(application);
  return `the upload service said ${condition}${said}${limit === undefined ? "" : ` (max-file-size ${limit})`}`;
}

/** The max-file-size of a <file-too-large/> error element. */
function maxFromTooLarge(application: unknown): string | undefined {
  const element = application as Element | undefined;
  if (typeof element?.is !== "function" || !element.is("file-too-large", NS.httpUpload)) return undefined;
  const max = element.getChildText("max-file-size")?.trim();
  return max !== undefined && /^\d{1,15}$/.test(max) ? max : undefined;
}
