// The msteams account's session file: the refresh token of the signed-in user and each channel's last seen time, so
// a restart neither asks to sign in again nor misses what was said meanwhile. It holds a credential, so it is
// written as every file the bridge writes (issue 26): never through a planted link (a symlink or a non-regular file
// at the path is refused), through a new random temporary file beside it (created exclusively, mode 0600, no
// following of links), flushed to disk, then renamed over the old one, so a crash leaves the old or the new file.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
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

/** Refuses a path that is a symlink or not a regular file; true when there is a file, false when there is none. */
function checkTarget(path: string): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new SessionFileError(`cannot read SessionFile ${path}: ${(error as Error).message}`);
  }
  if (stat.isSymbolicLink()) throw new SessionFileError(`SessionFile ${path} is a symbolic link; refusing to use it`);
  if (!stat.isFile()) throw new SessionFileError(`SessionFile ${path} is not a regular file; refusing to use it`);
  return true;
}

/** The session kept at `path`, or undefined when there is none (or it holds no refresh token). */
export function readSession(path: string): Session | undefined {
  if (!checkTarget(path)) return undefined;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    throw new SessionFileError(`cannot open SessionFile ${path}: ${(error as Error).message}`);
  }
  let text: string;
  try {
    if (!fstatSync(fd).isFile()) throw new SessionFileError(`SessionFile ${path} is not a regular file`);
    text = readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
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
  checkTarget(path);
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(8).toString("hex")}.tmp`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  let fd: number;
  try {
    fd = openSync(temporary, flags, 0o600);
  } catch (error) {
    throw new SessionFileError(`cannot write SessionFile ${path}: ${(error as Error).message}`);
  }
  try {
    try {
      writeSync(fd, `${JSON.stringify({ version: 1, ...session }, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new SessionFileError(`cannot write SessionFile ${path}: ${(error as Error).message}`);
  }
}
