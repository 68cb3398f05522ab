import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/** Every key starts so, which makes a leaked one easy to recognise (and to scan for). */
const KEY_PREFIX = "sk-sb-";

/** A new secret: 192 random bits, base64url. Shown once; only its hash is kept. */
export function newSecret(): string {
  return `${KEY_PREFIX}${randomBytes(24).toString("base64url")}`;
}

export function newKeyId(): string {
  return `key_${randomUUID().replaceAll("-", "")}`;
}

/**
 * SHA-256, hex. A fast hash is right here: the secrets are random and high-entropy (nothing to brute-force), and a
 * slow one would be paid on every request.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Whether `given` hashes to `hash`, compared in constant time. */
export function secretMatches(given: string, hash: string): boolean {
  const expected = Buffer.from(hash, "hex");
  const actual = createHash("sha256").update(given).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** "sk-sb-Ab12…": enough to tell keys apart in a list, far too little to use. */
export function hintOf(secret: string): string {
  return `${secret.slice(0, KEY_PREFIX.length + 4)}…`;
}
