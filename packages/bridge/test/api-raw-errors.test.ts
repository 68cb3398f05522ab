// What Node and fastify refuse before a route runs is still answered in the API's own format ({"message": "..."}).
// Raw sockets send what real HTTP clients refuse to send.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { describe, it } from "node:test";
import { withTimeout } from "@switchboard/testkit";
import fc from "fast-check";
import { useFourAccounts } from "./four-accounts.ts";

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Writes bytes on a fresh connection and parses the one answer the server sends before closing or going quiet. */
function rawRequest(base: string, bytes: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return withTimeout(
    new Promise<RawAnswer>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(bytes));
      let data = "";
      const finish = () => {
        socket.destroy();
        const match = /^HTTP\/1\.1 (\d{3}) [^\r]*\r\n([\s\S]*?)\r\n\r\n([\s\S]*)$/.exec(data);
        if (!match) return reject(new Error(`no HTTP answer to ${JSON.stringify(bytes.slice(0, 80))}: ${data}`));
        const headers = match[2] ?? "";
        const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? -1);
        resolve({ status: Number(match[1]), headers, body: length >= 0 ? (match[3] ?? "").slice(0, length) : "" });
      };
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        data += chunk;
        const end = data.indexOf("\r\n\r\n");
        const length = /content-length: (\d+)/i.exec(data.slice(0, end))?.[1];
        if (end >= 0 && length !== undefined && data.length >= end + 4 + Number(length)) finish();
      });
      socket.on("close", finish);
      socket.on("error", () => {});
    }),
    10_000,
    "a raw request",
  );
}

function assertDesigned(answer: RawAnswer, status: number, pattern: RegExp): void {
  assert.equal(answer.status, status, `${answer.headers}\n${answer.body}`);
  assert.match(answer.headers, /content-type: application\/json/i);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ["message"]);
  assert.match(String(body["message"]), pattern);
}

describe("errors raised by Node and fastify, in the API's format", () => {
  const { url } = useFourAccounts();
  const req = (line: string, headers = "Host: x\r\n", body = "") =>
    rawRequest(url("a"), `${line}\r\n${headers}\r\n${body}`);

  it("an unknown method → 400; a method no route has → 405 with Allow", async () => {
    assertDesigned(await req("FOO /api/health HTTP/1.1"), 400, /unknown HTTP method/);
    const propfind = await req("PROPFIND /api/health HTTP/1.1");
    assertDesigned(propfind, 405, /PROPFIND is not allowed on \/api\/health/);
    assert.match(propfind.headers, /allow: GET, HEAD/i);
  });

  it("malformed percent-encoding in the path → 400", async () => {
    assertDesigned(await req("GET /api/%zz HTTP/1.1"), 400, /malformed URL/);
    assertDesigned(await req("GET /api/messages%E0%A4%A HTTP/1.1"), 400, /malformed URL/);
  });

  it("Content-Length together with Transfer-Encoding → 400 (either order)", async () => {
    const post = "POST /api/message HTTP/1.1";
    const te = "Transfer-Encoding: chunked\r\n";
    const cl = "Content-Length: 5\r\n";
    const json = "Content-Type: application/json\r\n";
    assertDesigned(
      await req(post, `Host: x\r\n${json}${cl}${te}`, "0\r\n\r\n"),
      400,
      /Content-Length and Transfer-Encoding/,
    );
    assertDesigned(
      await req(post, `Host: x\r\n${json}${te}${cl}`, "0\r\n\r\n"),
      400,
      /Content-Length and Transfer-Encoding/,
    );
  });

  it("headers too large → 431", async () => {
    assertDesigned(
      await req("GET /api/health HTTP/1.1", `Host: x\r\nX-Big: ${"a".repeat(20_000)}\r\n`),
      431,
      /headers too large/,
    );
  });

  it("CONNECT → 405", async () => {
    assertDesigned(await req("CONNECT example.com:443 HTTP/1.1", "Host: example.com:443\r\n"), 405, /CONNECT/);
  });

  it("a bad HTTP version, a missing Host, a bad websocket handshake → 400; an unknown path → 404", async () => {
    assertDesigned(await req("GET /api/health HTTP/9.9"), 400, /HTTP version/);
    assertDesigned(await req("GET /api/health HTTP/1.1", ""), 400, /Host/);
    const upgrade = "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n";
    assertDesigned(await req("GET /api/websocket HTTP/1.1", upgrade), 400, /Sec-WebSocket-Key/);
    assertDesigned(await req("GET /nope HTTP/1.1"), 404, /no route GET \/nope/);
  });

  it("an upgrade of anything but GET /api/websocket → 400 at once, body or not (a POST used to hang)", async () => {
    const body = '{"text":"hi","username":"u","gateway":"g"}';
    const upgrade = "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nContent-Type: application/json\r\n";
    const withBody = `${upgrade}Content-Length: ${body.length}\r\n`;
    assertDesigned(await req("POST /api/message HTTP/1.1", withBody, body), 400, /Upgrade.*GET \/api\/websocket/);
    assertDesigned(await req("POST /api/message HTTP/1.1", `${upgrade}Content-Length: 0\r\n`), 400, /Upgrade/);
    assertDesigned(await req("PUT /api/websocket HTTP/1.1", upgrade), 400, /Upgrade/);
    assertDesigned(await req("GET /api/health HTTP/1.1", upgrade), 400, /Upgrade/);
  });

  it("answers random request lines and headers in its format", async () => {
    const token = fc.stringMatching(/^[A-Za-z%-]{1,12}$/);
    const path = fc.oneof(
      fc.constantFrom("/api/health", "/api/message", "/api/messages", "/", "*", "/api/%", "/%%", "/api/%c3%28"),
      fc.webPath(),
    );
    await fc.assert(
      fc.asyncProperty(
        token,
        path,
        fc.constantFrom("HTTP/1.1", "HTTP/1.0", "HTTP/2.0", "HTTX/1.1"),
        async (method, target, version) => {
          const answer = await req(`${method} ${target || "/"} ${version}`, "Host: x\r\nContent-Length: 0\r\n");
          assert.ok(answer.status >= 200 && answer.status < 500, `${method} ${target} ${version} -> ${answer.status}`);
          if (answer.status !== 200 && method !== "HEAD") {
            assert.deepEqual(Object.keys(JSON.parse(answer.body)), ["message"], answer.body);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
