import { MalformedResponse } from "./malformed-response.ts";

/** How the response's body is delimited (RFC 9112 §6.3). */
type BodyFraming =
  | { readonly kind: "none" }
  | { readonly kind: "length"; readonly length: number }
  | { readonly kind: "chunked" }
  /** No length given: the body ends when the backend closes the connection. */
  | { readonly kind: "close" };

/**
 * What the client needs of a response head; every other header is only validated. Read-only: the parser hands the
 * same object out again for an identical head.
 */
export interface ResponseHead {
  readonly statusCode: number;
  /** The Content-Type when the response has exactly one. */
  readonly contentType: string | undefined;
  readonly framing: BodyFraming;
  /** The connection may carry another request once this response is read. */
  readonly keepAlive: boolean;
  /** The backend's `Keep-Alive: timeout=N` hint, in milliseconds. */
  readonly keepAliveHintMs: number | undefined;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a reason phrase may not hold
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?:[ \t][^\x00-\x08\x0a-\x1f\x7f]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Control characters other than HTAB; CR and LF only ever appear as the line ends the head was split on. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const FORBIDDEN_IN_HEAD = /[\x00-\x08\x0a-\x1f\x7f]/;
const DIGITS = /^\d{1,15}$/;
const KEEP_ALIVE_TIMEOUT = /(?:^|[\s,;])timeout\s*=\s*(\d{1,9})/i;

/**
 * Parses one response head (status line and header lines, without the blank line that ends it) as latin1 text, as
 * a response to a POST. Throws MalformedResponse when it is not a valid HTTP/1.x head or its framing is ambiguous.
 */
export function parseResponseHead(text: string): ResponseHead {
  const lines = text.split("\r\n");
  const statusMatch = STATUS_LINE.exec(lines[0] ?? "");
  if (statusMatch === null) throw new MalformedResponse("invalid status line");
  const http10 = statusMatch[1] === "0";
  const statusCode = Number(statusMatch[2]);
  let contentType: string | undefined;
  let contentTypes = 0;
  let contentLength: number | undefined;
  let transferEncoding: string | undefined;
  let connection = "";
  let keepAliveHintMs: number | undefined;
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    const colon = checkFieldLine(line);
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    switch (name.toLowerCase()) {
      case "content-type":
        contentType = value;
        contentTypes++;
        break;
      case "content-length":
        contentLength = mergeContentLength(contentLength, value);
        break;
      case "transfer-encoding":
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        break;
      case "connection":
        connection = connection === "" ? value : `${connection}, ${value}`;
        break;
      case "keep-alive": {
        const hint = KEEP_ALIVE_TIMEOUT.exec(value);
        if (hint) keepAliveHintMs = Number(hint[1]) * 1000;
        break;
      }
    }
  }
  if (transferEncoding !== undefined && contentLength !== undefined) {
    throw new MalformedResponse("both Transfer-Encoding and Content-Length");
  }
  const chunked = transferEncoding !== undefined && endsInChunked(transferEncoding);
  const tokens = connection === "" ? [] : connection.toLowerCase().split(/\s*,\s*/);
  const framing = framingOf(statusCode, contentLength, transferEncoding, chunked);
  // HTTP/1.1 keeps the connection unless told otherwise; HTTP/1.0 only when asked to and with no transfer coding.
  const keepAlive =
    !tokens.includes("close") &&
    framing.kind !== "close" &&
    (!http10 || (tokens.includes("keep-alive") && transferEncoding === undefined));
  return {
    statusCode,
    contentType: contentTypes === 1 ? contentType : undefined,
    framing,
    keepAlive,
    keepAliveHintMs,
  };
}

/**
 * Checks one header or trailer line and returns the index of its colon. A line with no colon, an empty name,
 * whitespace before the colon, a folded line (obs-fold) or a control character is rejected.
 */
export function checkFieldLine(line: string): number {
  if (FORBIDDEN_IN_HEAD.test(line)) throw new MalformedResponse("control character in a header");
  const colon = line.indexOf(":");
  if (colon <= 0 || !TOKEN.test(line.slice(0, colon))) throw new MalformedResponse("invalid header line");
  return colon;
}

function framingOf(
  statusCode: number,
  contentLength: number | undefined,
  transferEncoding: string | undefined,
  chunked: boolean,
): BodyFraming {
  if (statusCode < 200 || statusCode === 204 || statusCode === 304) return { kind: "none" };
  if (chunked) return { kind: "chunked" };
  // A transfer coding other than chunked last leaves the length unknown (RFC 9112 §6.3, point 4).
  if (transferEncoding !== undefined) return { kind: "close" };
  if (contentLength !== undefined) return { kind: "length", length: contentLength };
  return { kind: "close" };
}

/** Repeated Content-Length values (as headers or a list) are accepted only when they all agree. */
function mergeContentLength(previous: number | undefined, value: string): number {
  let length = previous;
  for (const part of value.split(",")) {
    const digits = part.trim();
    if (!DIGITS.test(digits)) throw new MalformedResponse("invalid Content-Length");
    const parsed = Number(digits);
    if (length !== undefined && length !== parsed) throw new MalformedResponse("conflicting Content-Length values");
    length = parsed;
  }
  if (length === undefined) throw new MalformedResponse("invalid Content-Length");
  return length;
}

/** `chunked` must be the last coding and appear once; each coding must be a token. */
function endsInChunked(transferEncoding: string): boolean {
  const codings = transferEncoding.split(",").map((coding) => coding.trim().toLowerCase());
  codings.forEach((coding, index) => {
    if (!TOKEN.test(coding.split(";")[0]!.trim())) throw new MalformedResponse("invalid Transfer-Encoding");
    if (coding === "chunked" && index !== codings.length - 1) {
      throw new MalformedResponse("chunked is not the last transfer coding");
    }
  });
  return codings[codings.length - 1] === "chunked";
}
