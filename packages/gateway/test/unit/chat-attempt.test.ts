import assert from "node:assert/strict";
import type { OutgoingHttpHeaders } from "node:http";
import { describe, it } from "node:test";
import { OPENAI_ANSWERS } from "../../src/dispatch/answer-dialect.ts";
import type { AnswerWriter } from "../../src/dispatch/answer-writer.ts";
import { ChatAttempt } from "../../src/dispatch/chat-attempt.ts";

/** An answer writer that records every call made to it. */
class RecordingWriter implements AnswerWriter {
  headersSent = false;
  destroyed = false;
  writableEnded = false;
  readonly calls: [string, string][] = [];

  writeHead(statusCode: number, _headers: OutgoingHttpHeaders): this {
    this.headersSent = true;
    this.calls.push(["writeHead", String(statusCode)]);
    return this;
  }

  write(chunk: string | Buffer): boolean {
    this.calls.push(["write", chunk.toString()]);
    return true;
  }

  end(chunk?: string | Buffer): this {
    this.writableEnded = true;
    this.calls.push(["end", chunk?.toString() ?? ""]);
    return this;
  }

  once(): this {
    return this;
  }
}

const event = (n: number) => `data: {"n":${n}}\n\n`;
const streamAttempt = (res: AnswerWriter) =>
  new ChatAttempt({ backend: "b", stream: true, headers: {}, res, dialect: OPENAI_ANSWERS });

describe("a streamed chat attempt", () => {
  it("writes the events and the end of one backend read together, in one end", async () => {
    const res = new RecordingWriter();
    const attempt = streamAttempt(res);
    attempt.start(200, "text/event-stream");
    attempt.data(Buffer.from(event(1)));
    attempt.data(Buffer.from(event(2)));
    attempt.end();
    assert.deepEqual(await attempt.done, { kind: "answered", status: 200, ok: true });
    assert.deepEqual(res.calls, [
      ["writeHead", "200"],
      ["end", `${event(1)}${event(2)}data: [DONE]\n\n`],
    ]);
  });

  it("writes each read's events at the end of its turn, before the next read", async () => {
    const res = new RecordingWriter();
    const attempt = streamAttempt(res);
    attempt.start(200, "text/event-stream");
    attempt.data(Buffer.from(event(1)));
    assert.deepEqual(res.calls, [], "nothing is written within the read");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(res.calls, [
      ["writeHead", "200"],
      ["write", event(1)],
    ]);
    attempt.data(Buffer.from(`${event(2)}data: [DONE]\n\n`));
    attempt.end();
    assert.deepEqual(res.calls.at(-1), ["end", `${event(2)}data: [DONE]\n\n`]);
  });

  it("relays the events that came before a failure in the same read: the stream began, so it breaks, not fails over", async () => {
    const res = new RecordingWriter();
    const attempt = streamAttempt(res);
    attempt.start(200, "text/event-stream");
    attempt.data(Buffer.from(event(1)));
    attempt.error(new Error("connection reset"));
    const result = await attempt.done;
    assert.equal(result.kind, "answered");
    assert.equal(result.kind === "answered" && result.brokenStream, "connection reset");
    assert.deepEqual(res.calls.slice(0, 2), [
      ["writeHead", "200"],
      ["write", event(1)],
    ]);
    assert.equal(res.calls[2]?.[0], "end");
  });
});
