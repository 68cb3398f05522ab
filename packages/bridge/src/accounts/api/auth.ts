// Bearer token check: constant-time comparison of digests; the token never reaches a log line.
import { createHash, timingSafeEqual } from "node:crypto";

export type AuthResult = { ok: true } | { ok: false; message: string };

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest();

export function bearerChecker(token: string): (header: string | undefined) => AuthResult {
  const expected = digest(token);
  return (header) => {
    if (header === undefined || header === "") {
      return { ok: false, message: "missing token: send the header Authorization: Bearer <token>" };
    }
    const match = /^Bearer +(\S+) *$/i.exec(header);
    if (!match?.[1]) return { ok: false, message: "malformed Authorization header: expected Bearer <token>" };
    if (!timingSafeEqual(digest(match[1]), expected)) return { ok: false, message: "invalid token" };
    return { ok: true };
  };
}
