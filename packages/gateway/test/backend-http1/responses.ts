import fc from "fast-check";

/** A valid HTTP/1.x response to a POST, as a backend could send it, and what a client must make of it. */
export interface ResponseCase {
  bytes: Buffer;
  statusCode: number;
  contentType: string | undefined;
  body: Buffer;
  /** Delimited by the connection's close: the backend ends the connection after the bytes. */
  closeDelimited: boolean;
  /** Cut points for TCP segments. */
  cuts: number[];
}

const header = (name: string, upper: boolean) => (upper ? name.toUpperCase() : name);

/** Builds the bytes of a response from its parts; see `responseCase` for what varies. */
function encode(parts: {
  http10: boolean;
  interim: number[];
  statusCode: number;
  reason: string;
  contentType: string | undefined;
  framing: "length" | "chunked" | "close";
  body: Uint8Array;
  chunkCuts: number[];
  extensions: string[];
  trailers: string[];
  extraHeaders: string[];
  upperCaseNames: boolean;
}): { bytes: Buffer; body: Buffer; closeDelimited: boolean } {
  const version = parts.http10 ? "HTTP/1.0" : "HTTP/1.1";
  const bodyless = parts.statusCode === 204 || parts.statusCode === 304;
  let head = "";
  for (const code of parts.interim) head += `${version} ${code} Interim\r\nx-interim: yes\r\n\r\n`;
  head += `${version} ${parts.statusCode}${parts.reason}\r\n`;
  if (parts.contentType !== undefined)
    head += `${header("content-type", parts.upperCaseNames)}: ${parts.contentType}\r\n`;
  for (const line of parts.extraHeaders) head += `${line}\r\n`;
  const body = Buffer.from(parts.body);
  if (bodyless) {
    // A 304 may state the length of the representation it stands for; no body follows either way.
    if (parts.statusCode === 304 && body.length > 0) head += `Content-Length: ${body.length}\r\n`;
    if (parts.http10) head += "Connection: keep-alive\r\n";
    return { bytes: Buffer.from(`${head}\r\n`, "latin1"), body: Buffer.alloc(0), closeDelimited: false };
  }
  if (parts.framing === "close" || (parts.http10 && parts.framing === "chunked")) {
    return { bytes: Buffer.concat([Buffer.from(`${head}\r\n`, "latin1"), body]), body, closeDelimited: true };
  }
  if (parts.framing === "length") {
    head += `${header("content-length", parts.upperCaseNames)}: ${body.length}\r\n`;
    if (parts.http10) head += "Connection: keep-alive\r\n";
    return { bytes: Buffer.concat([Buffer.from(`${head}\r\n`, "latin1"), body]), body, closeDelimited: false };
  }
  head += `${header("transfer-encoding", parts.upperCaseNames)}: chunked\r\n\r\n`;
  const pieces: Buffer[] = [Buffer.from(head, "latin1")];
  const cuts = [...new Set(parts.chunkCuts.map((cut) => cut % (body.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  cuts.push(body.length);
  cuts.forEach((cut, index) => {
    if (cut <= from) return;
    const extension = parts.extensions[index % Math.max(1, parts.extensions.length)] ?? "";
    const size = (cut - from).toString(16);
    pieces.push(Buffer.from(`${index % 2 ? size.toUpperCase() : size}${extension}\r\n`, "latin1"));
    pieces.push(body.subarray(from, cut), Buffer.from("\r\n"));
    from = cut;
  });
  pieces.push(
    Buffer.from(`0${parts.extensions[0] ?? ""}\r\n${parts.trailers.map((line) => `${line}\r\n`).join("")}\r\n`),
  );
  return { bytes: Buffer.concat(pieces), body, closeDelimited: false };
}

export const responseCase: fc.Arbitrary<ResponseCase> = fc
  .record({
    http10: fc.boolean(),
    interim: fc.array(fc.constantFrom(100, 102, 103), { maxLength: 2 }),
    statusCode: fc.oneof(
      fc.integer({ min: 200, max: 599 }).filter((code) => code !== 204 && code !== 304),
      fc.constantFrom(200, 204, 304, 404, 500),
    ),
    reason: fc.constantFrom(" OK", " ", "", " Not Found", " Internal Server Error", "\tTab"),
    contentType: fc.option(fc.constantFrom("application/json", "text/event-stream; charset=utf-8", "text/plain"), {
      nil: undefined,
    }),
    framing: fc.constantFrom("length" as const, "chunked" as const, "close" as const),
    body: fc.uint8Array({ maxLength: 3000 }),
    chunkCuts: fc.array(fc.nat(3000), { maxLength: 12 }),
    extensions: fc.array(fc.constantFrom("", ";a=b", ';name="quoted; value"', " ;x", ";ext", "\t;t=1"), {
      maxLength: 4,
    }),
    trailers: fc.array(fc.constantFrom("x-trailer: 1", "Server-Timing: db;dur=5", "Empty:"), { maxLength: 3 }),
    extraHeaders: fc.array(
      fc.constantFrom("Date: Sun, 29 Nov 2026 06:00:00 GMT", "server: uvicorn", "X-Odd:   spaced\t", "Vary: Accept"),
      { maxLength: 3 },
    ),
    upperCaseNames: fc.boolean(),
    segmentCuts: fc.array(fc.nat(4000), { maxLength: 12 }),
  })
  .map((parts) => {
    const { bytes, body, closeDelimited } = encode(parts);
    return {
      bytes,
      statusCode: parts.statusCode,
      contentType: parts.contentType,
      body,
      closeDelimited,
      cuts: parts.segmentCuts.map((cut) => cut % (bytes.length + 1)),
    };
  });

/** Responses no client may accept: each must end in an error, whatever came before it. */
export const malformedResponse: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
    "HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n",
    "ICY 200 OK\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 12abc\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n",
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc",
    "HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nabc",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\nabc\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1234567890abc\r\nabc\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\nabc\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\n0\n\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;bad\x01ext\r\nab\r\n0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnot a trailer\r\n\r\n",
    `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;${"e".repeat(5000)}\r\nab\r\n0\r\n\r\n`,
    `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nx: ${"t".repeat(20_000)}\r\n\r\n`,
    "HTTP/1.1 200 OK\r\nContent-Type : text/plain\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nno colon here\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\n: empty name\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nX-Bad: a\x01b\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nX-Bad: a\rb\r\nContent-Length: 0\r\n\r\n",
    "HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 0\r\n\r\n",
    `HTTP/1.1 200 OK\r\nX-Big: ${"h".repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`,
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n",
    "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
    // Cut short by the close: a body shorter than its length, a chunked body without its last chunk, half a head.
    "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly some",
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n",
    "HTTP/1.1 200 OK\r\nContent-Le",
    "",
  ),
  // Whatever bytes at all.
  fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
);
