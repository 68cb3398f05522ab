// Recognises, in the bytes a connection sent, the head of an ordinary request that a raw ingress serves itself
// (raw-ingress.ts). The grammar is deliberately narrower than HTTP/1.1: a request line exactly
// `POST <route> HTTP/1.1`, header names that are tokens, values of visible characters, no line folding, no header
// named twice, one Host, one Content-Length of plain digits within the limit, one of the service's content types as
// clients send them, and no Transfer-Encoding, Expect, Upgrade or Connection other than keep-alive. Whatever else a
// client sends is handed to node:http unread, which parses (and refuses) it as it always did: a request taken here is
// one whose framing node would read the same way.

/** Node's default limit on a request head (`--max-http-header-size`). */
const MAX_HEAD_BYTES = 16 * 1024;
/** More headers than this is unusual: node:http takes such a request. */
const MAX_HEADERS = 64;

const END_OF_HEAD = Buffer.from("\r\n\r\n");
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PLAIN_LENGTH = /^ ?[1-9][0-9]{0,9}$/;
/** Headers whose presence means node:http must handle the request (framing, interim answers, protocol switch). */
const HANDED_ON = new Set(["transfer-encoding", "expect", "upgrade", "te", "trailer"]);

export interface RequestHead {
  kind: "taken";
  path: string;
  /** Lower-cased names, as node:http gives them (no name appears twice here). */
  headers: Record<string, string>;
  /** Where the body starts. */
  bodyStart: number;
  contentLength: number;
}

export type HeadReading = RequestHead | { kind: "incomplete" } | { kind: "other" };

const INCOMPLETE = { kind: "incomplete" } as const;
const OTHER = { kind: "other" } as const;

/**
 * Reads the head at the start of `bytes`. "incomplete": no blank line yet (within MAX_HEAD_BYTES); "other": a request
 * node:http must handle; "taken": one served here, to one of `paths`, with at most `maxBody` bytes of body and a
 * Content-Type spelled exactly as one of `contentTypes`.
 */
export function readRequestHead(
  bytes: Buffer,
  paths: ReadonlySet<string>,
  maxBody: number,
  contentTypes: ReadonlySet<string>,
): HeadReading {
  const end = bytes.indexOf(END_OF_HEAD);
  if (end < 0) return bytes.length < MAX_HEAD_BYTES && startsLikePost(bytes) ? INCOMPLETE : OTHER;
  if (end > MAX_HEAD_BYTES) return OTHER;
  const last = lastTaken;
  if (
    last !== undefined &&
    last.bytes.length === end &&
    last.paths === paths &&
    last.maxBody === maxBody &&
    last.contentTypes === contentTypes &&
    bytes.compare(last.bytes, 0, end, 0, end) === 0
  ) {
    const { path, headers, contentLength } = last.head;
    // The caller's own headers object, as a head read anew gives it.
    return { kind: "taken", path, headers: { ...headers }, bodyStart: end + 4, contentLength };
  }
  const reading = readHeadText(bytes, end, paths, maxBody, contentTypes);
  if (reading.kind === "taken") {
    const head = { ...reading, headers: { ...reading.headers } };
    lastTaken = { bytes: Buffer.from(bytes.subarray(0, end)), paths, maxBody, contentTypes, head };
  }
  return reading;
}

/**
 * The last head taken, its bytes (a copy) and what it was read against: a client sends the same head again and again
 * (the bench's load does, SDKs do while a body's length stays the same), and comparing its bytes costs a fifth of
 * reading it (0.75 against 2.5-3.7 µs). A head that differs (another length, say) is read anew.
 */
let lastTaken:
  | {
      bytes: Buffer;
      paths: ReadonlySet<string>;
      maxBody: number;
      contentTypes: ReadonlySet<string>;
      head: RequestHead;
    }
  | undefined;

/** Reads the head that ends at `end` anew (see readRequestHead). */
export function readHeadText(
  bytes: Buffer,
  end: number,
  paths: ReadonlySet<string>,
  maxBody: number,
  contentTypes: ReadonlySet<string>,
): HeadReading {
  if (!plainBytes(bytes, end)) return OTHER;
  const text = bytes.toString("latin1", 0, end);
  const lines = text.split("\r\n");
  const requestLine = lines[0] as string;
  if (!requestLine.startsWith("POST ") || !requestLine.endsWith(" HTTP/1.1")) return OTHER;
  const path = requestLine.slice(5, -9);
  if (!paths.has(path) || lines.length - 1 > MAX_HEADERS) return OTHER;
  const headers: Record<string, string> = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const colon = line.indexOf(":");
    if (colon <= 0) return OTHER;
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return OTHER;
    const key = lowerCase(name);
    if (key in headers || HANDED_ON.has(key)) return OTHER;
    // llhttp refuses a length with blanks after it: only the plain form is taken.
    if (key === "content-length" && !PLAIN_LENGTH.test(line.slice(colon + 1))) return OTHER;
    headers[key] = trimmed(line, colon + 1);
  }
  const length = headers["content-length"];
  if (
    headers.host === undefined ||
    length === undefined ||
    Number(length) > maxBody ||
    !contentTypes.has(headers["content-type"] ?? "") ||
    (headers.connection !== undefined && headers.connection.toLowerCase() !== "keep-alive")
  ) {
    return OTHER;
  }
  return { kind: "taken", path, headers, bodyStart: end + 4, contentLength: Number(length) };
}

/**
 * Field values as llhttp accepts them hold visible ASCII, spaces, tabs and obs-text: in a head, anything else than
 * those and CRLF line breaks is handed on. One pass over the bytes before `end` (a regular expression with a
 * lookbehind cost most of the reading of a head).
 */
function plainBytes(bytes: Buffer, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const byte = bytes[i] as number;
    if (byte >= 0x20) {
      if (byte === 0x7f) return false;
    } else if (byte === 0x0d && bytes[i + 1] === 0x0a) {
      i++;
    } else if (byte !== 0x09) {
      return false;
    }
  }
  return true;
}

/** The usual header names as clients spell them, lower-cased once (see lowerCase). */
const USUAL_NAMES: ReadonlyMap<string, string> = new Map(
  ["Host", "Content-Type", "Content-Length", "Authorization", "Connection", "User-Agent", "Accept"].flatMap((name) => [
    [name, name.toLowerCase()],
    [name.toLowerCase(), name.toLowerCase()],
  ]),
);

/**
 * A header name in lower case. A usual one comes from USUAL_NAMES: a string made by toLowerCase() is new, and
 * looking it up in the headers object (to refuse a name given twice) cost more than the rest of the head.
 */
function lowerCase(name: string): string {
  return USUAL_NAMES.get(name) ?? name.toLowerCase();
}

const POST = Buffer.from("POST ");

/** Whether an unfinished head may still become a request taken here (else node:http takes it at once). */
function startsLikePost(bytes: Buffer): boolean {
  const n = Math.min(bytes.length, POST.length);
  return bytes.compare(POST, 0, n, 0, n) === 0;
}

/** The field value from `start`, without the spaces and tabs around it. */
function trimmed(line: string, start: number): string {
  let from = start;
  let to = line.length;
  while (from < to && isBlank(line.charCodeAt(from))) from++;
  while (to > from && isBlank(line.charCodeAt(to - 1))) to--;
  return line.slice(from, to);
}

const isBlank = (code: number) => code === 0x20 || code === 0x09;
