import { readFileSync, writeFileSync } from "node:fs";

/** Overwrites bytes 100-199 of a file with "A" (a damaged cache entry, say) and returns what the file now holds. */
export function corruptFile(path: string): Buffer {
  const corrupt = readFileSync(path);
  corrupt.fill(0x41, 100, 200);
  writeFileSync(path, corrupt);
  return corrupt;
}
