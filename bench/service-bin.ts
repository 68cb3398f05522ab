// The file a service's bin runs in a checkout, as its package.json names it: an earlier checkout (a bench's
// `--before`) may name another (bin/*.mjs before the bins became CommonJS).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** This checkout. */
export const REPOSITORY_ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");

export function serviceBin(root: string, name: "gateway" | "bridge"): string {
  const dir = join(root, "packages", name);
  const { bin } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { bin: Record<string, string> };
  const file = bin[`switchboard-${name}`];
  if (file === undefined) throw new Error(`${dir}/package.json names no switchboard-${name} bin`);
  return join(dir, file);
}
