import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { RequestTemplate, scanAnswers } from "./pipelined-poster.ts";

const body = { before: '{"text":"m', after: '","username":"bench","gateway":"bench"}' };

test("a request written from the template is the request written as text", () => {
  const template = new RequestTemplate("127.0.0.1", 4242, "/api/message", body);
  fc.assert(
    fc.property(fc.nat(), (seq) => {
      const json = `${body.before}${seq}${body.after}`;
      const expected = `POST /api/message HTTP/1.1\r\nHost: 127.0.0.1:4242\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\n\r\n${json}`;
      assert.equal(template.text(seq), expected);
      assert.ok(template.maxLength(seq + 1) >= expected.length);
    }),
  );
});

const answer = (status: number, text: string, lower: boolean) =>
  `HTTP/1.1 ${status} X\r\n${lower ? "content-length" : "Content-Length"}: ${Buffer.byteLength(text)}\r\nX-A: 1\r\n\r\n${text}`;

test("answers are counted from raw bytes however they are cut, up to the first that is not a 200", () => {
  const arbitraryAnswer = fc.record({
    status: fc.constantFrom(200, 200, 200, 400, 503),
    text: fc.string({ maxLength: 40 }),
    lower: fc.boolean(),
  });
  fc.assert(
    fc.property(fc.array(arbitraryAnswer, { maxLength: 8 }), fc.nat(), (answers, cutSeed) => {
      const bytes = Buffer.from(answers.map((a) => answer(a.status, a.text, a.lower)).join(""));
      const cut = bytes.length === 0 ? 0 : cutSeed % (bytes.length + 1);
      // What arrived up to the cut, then the rest with the unconsumed bytes, as the connection reads them.
      const first = scanAnswers(bytes.subarray(0, cut));
      const second = first.refusal === undefined ? scanAnswers(bytes.subarray(first.consumed)) : first;
      const refused = answers.findIndex((a) => a.status !== 200);
      const counted = first.refusal === undefined ? first.answers + second.answers : first.answers;
      assert.equal(counted, refused < 0 ? answers.length : refused);
      assert.equal(second.refusal !== undefined, refused >= 0);
      if (refused >= 0) assert.match(second.refusal ?? "", new RegExp(`^HTTP/1.1 ${answers[refused]?.status} X: `));
    }),
  );
});
