// RawResponse.onFinished replaces a "finish" listener per answer (the bridge's access log line): it must be told
// exactly when such a listener is, once, after the "finish" listeners and before "close", whether the answer was
// written on its own, joined with others, or with nothing left to write; and never for an answer that was abandoned.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { beginJoinedWrite, endJoinedWrite } from "../src/http1/joined-writes.ts";
import { RawResponse } from "../src/http1/raw-response.ts";
import { recordingSocket } from "./recording-socket.ts";

type Body = string | Buffer | undefined;
const body: fc.Arbitrary<Body> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  fc.constant(undefined),
);

interface Answer {
  body: Body;
  status: number;
  /** Headers written before the body (the body then goes chunked). */
  early: boolean;
  abandoned: boolean;
}

const answerArb: fc.Arbitrary<Answer> = fc.record({
  body,
  status: fc.constantFrom(200, 204, 304, 400, 503),
  early: fc.boolean(),
  abandoned: fc.boolean(),
});

/** What each answer's observers saw, in order, with a "finish" listener or with onFinished. */
async function observe(answers: Answer[], joined: boolean, viaOnFinished: boolean): Promise<string[][]> {
  const { socket } = recordingSocket();
  const seen: string[][] = answers.map(() => []);
  const responses: RawResponse[] = [];
  const end = {
    handedOver(response: RawResponse) {
      responses[responses.indexOf(response) + 1]?.takeTurn();
    },
    finished(response: RawResponse) {
      seen[responses.indexOf(response)]?.push("finished");
    },
  };
  answers.forEach((_answer, index) => {
    const response = new RawResponse(socket, true, 5, end, index === 0);
    const log = seen[index] as string[];
    response.on("finish", () => log.push("finish"));
    const startedAt = index * 10;
    if (viaOnFinished) response.onFinished((r, at) => log.push(`log ${r.statusCode} ${at}`), startedAt);
    else response.on("finish", () => log.push(`log ${response.statusCode} ${startedAt}`));
    response.on("close", () => log.push("close"));
    responses.push(response);
  });
  if (joined) beginJoinedWrite(socket);
  for (let i = answers.length - 1; i >= 0; i--) {
    const answer = answers[i] as Answer;
    const response = responses[i] as RawResponse;
    response.setHeader("date", "fixed");
    if (answer.early) response.writeHead(answer.status);
    else response.statusCode = answer.status;
    response.end(answer.body);
    if (answer.abandoned) response.abandon();
  }
  if (joined) endJoinedWrite(socket);
  await new Promise((resolve) => setImmediate(resolve));
  return seen;
}

describe("a raw answer's finish listener (onFinished)", () => {
  it("is told as a last 'finish' listener would be, once, before 'close'", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answerArb, { minLength: 1, maxLength: 6 }), fc.boolean(), async (answers, joined) => {
        const withListener = await observe(answers, joined, false);
        const withOnFinished = await observe(answers, joined, true);
        assert.deepEqual(withOnFinished, withListener);
        answers.forEach((answer, index) => {
          const log = withOnFinished[index] as string[];
          if (answer.abandoned) assert.deepEqual(log, ["close"]);
          else assert.deepEqual(log, ["finish", `log ${answer.status} ${index * 10}`, "close", "finished"]);
        });
      }),
      { numRuns: 300 },
    );
  });
});
