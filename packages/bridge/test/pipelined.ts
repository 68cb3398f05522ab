// Requests pipelined on one raw connection, and their HTTP/1.1 answers read back as sent.
import { connect, type Socket } from "node:net";

export interface Answer {
  status: string;
  /** Header lines as sent, in their order. */
  headers: string[];
  body: string;
}

/** Reads HTTP/1.1 answers (Content-Length framed, as every answer of this API is) until the connection closes. */
export function readAnswers(socket: Socket, count: number): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const answers: Answer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${count} answers expected, got ${answers.length}: ${data.toString("latin1")}`));
    }, 15_000);
    const done = () => {
      clearTimeout(timer);
      resolve(answers);
    };
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      for (;;) {
        const end = data.indexOf("\r\n\r\n");
        if (end < 0) return;
        const [status = "", ...headers] = data.toString("latin1", 0, end).split("\r\n");
        const length = Number(headers.find((line) => /^content-length:/i.test(line))?.split(":")[1] ?? 0);
        if (data.length < end + 4 + length) return;
        answers.push({ status, headers, body: data.toString("utf8", end + 4, end + 4 + length) });
        data = data.subarray(end + 4 + length);
        if (answers.length === count) {
          socket.destroy();
          done();
          return;
        }
      }
    });
    socket.on("close", done);
    socket.on("error", () => {});
  });
}

/** Sends `requests` on one connection, in `pieces` writes a little apart, and reads the answers. */
export async function exchange(url: string, requests: Buffer[], pieces: number): Promise<Answer[]> {
  const socket = connect(Number(new URL(url).port), "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const answers = readAnswers(socket, requests.length);
  const bytes = Buffer.concat(requests);
  const size = Math.ceil(bytes.length / pieces);
  for (let at = 0; at < bytes.length && !socket.destroyed; at += size) {
    socket.write(bytes.subarray(at, at + size));
    if (pieces > 1) await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return answers;
}

/** A POST as bytes, with the given header lines and a Content-Length. */
export const rawPost = (body: string, headers: string[] = ["Content-Type: application/json"], path = "/api/message") =>
  Buffer.from(
    `POST ${path} HTTP/1.1\r\nHost: bridge\r\n${headers.map((line) => `${line}\r\n`).join("")}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
