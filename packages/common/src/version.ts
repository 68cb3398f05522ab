import { readFileSync } from "node:fs";

/** The `version` of the package.json at `url` (a service passes `new URL("../package.json", import.meta.url)`). */
export function packageVersion(url: URL): string {
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}
