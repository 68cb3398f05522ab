// The msteams account's session file: the refresh token of the signed-in user and each channel's last seen time, so
// a restart neither asks to sign in again nor misses what was said meanwhile. It holds a credential, so it is
// read and written as the gateway's state files are (common/regular-file.ts): a symlink or a non-regular file at the
// path is refused, never followed; a write goes to a new random temporary file beside it (created exclusively, mode
// 0600), flushed to disk, then renamed over the old one, so a crash leaves the old or the new file.
import { basename, dirname, join, resolve } from "node:path";
import { readRegularFile, replaceRegularFile, UnsafeFileError } from "@switchboard/common";
import { objectOf, stringOf } from "../json-fields.ts";

export interface Session {
  refreshToken: string;
  /** Channel id -> the newest change handled (ms since the epoch). */
  cursors: Record<string, number>;
}

export class SessionFileError extends Error {
  override readonly name = "SessionFileError";
}

/** SessionFile as configured, else `<config name>.msteams-<account>.json` beside the config. */
export function sessionFilePath(setting: string, configPath: string, accountName: string): string {
  const dir = configPath === "" ? process.cwd() : dirname(resolve(configPath));
  if (setting !== "") return resolve(dir, setting);
  const config = configPath === "" ? "matterbridge" : basename(configPath).replace(/\.toml$/i, "");
  return join(dir, `${config}.msteams-${accountName}.json`);
}

/** The session kept at `path`, or undefined when there is none (or it holds no refresh token). */
export function readSession(path: string): Session | undefined {
  let text: string | undefined;
  try {
    text = readRegularFile(path);
  } catch (error) {
    throw sessionFileError("read", path, error);
  }
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined; // a damaged file is as good as none: sign in again
  }
  const fields = objectOf(parsed);
  const refreshToken = stringOf(fields?.refreshToken);
  if (refreshToken === undefined || refreshToken === "") return undefined;
  const cursors: Record<string, number> = {};
  for (const [channel, value] of Object.entries(objectOf(fields?.cursors) ?? {})) {
    if (typeof value === "number" && Number.isFinite(value)) cursors[channel] = value;
  }
  return { refreshToken, cursors };
}

export function writeSession(path: string, session: Session): void {
  try {
    replaceRegularFile(path, `${JSON.stringify({ version: 1, ...session }, null, 2)}\n`);
  } catch (error) {
    throw sessionFileError("write", path, error);
  }
}

function sessionFileError(doing: string, path: string, error: unknown): SessionFileError {
  if (error instanceof UnsafeFileError) return new SessionFileError(`SessionFile ${error.message}`);
  return new SessionFileError(`cannot ${doing} SessionFile ${path}: ${(error as Error).message}`);
}
