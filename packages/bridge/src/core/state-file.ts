// Opening the state file without trusting its folder: a symlink or a non-regular file is refused, a new file is
// created exclusively with mode 0600 (never through a planted link), and after SQLite opened it, the path must still
// be the very file checked (same device and inode), so a link swapped in between is caught too.
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { thrownMessage } from "@switchboard/common";

/** The state file cannot be used; the message is one line naming the file and what to do. */
export class StateFileError extends Error {
  override readonly name = "StateFileError";
}

/** `[general] StateFile`: unset = `<config name>.state.db` beside the config; "" = no state file. */
export function stateFilePath(setting: string | undefined, configPath: string): string | undefined {
  if (setting === "") return undefined;
  if (setting !== undefined) return resolve(dirname(configPath), setting);
  const name = basename(configPath).replace(/\.toml$/i, "");
  return resolve(dirname(configPath), `${name}.state.db`);
}

const HINT = 'set [general] StateFile to a regular file the bridge may write, or StateFile = "" to keep no state';

function fail(path: string, why: string): never {
  throw new StateFileError(`state file ${path}: ${why}; ${HINT}`);
}

function describeCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case "ENOENT":
      return "its folder does not exist";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EROFS":
      return "the file system is read-only";
    case "ELOOP":
      return "is a symbolic link (refused)";
    case "EISDIR":
      return "is a directory";
    default:
      return code ?? thrownMessage(error);
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    fail(path, describeCode(error));
  }
}

function checkRegular(path: string, stats: Stats): void {
  if (stats.isSymbolicLink()) fail(path, "is a symbolic link (refused: it could point anywhere)");
  if (!stats.isFile()) fail(path, "is not a regular file");
}

/** The identity of the file checked before SQLite opens it; `confirm` checks the path still names it. */
export interface CheckedFile {
  readonly path: string;
  confirm(): void;
}

/**
 * Checks (or creates, 0600) the state file and SQLite's companions (`-wal`, `-shm`, which must not be links either).
 * Throws StateFileError.
 */
export function checkStateFile(path: string): CheckedFile {
  for (const companion of [`${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    const stats = lstatOrUndefined(companion);
    if (stats !== undefined) checkRegular(companion, stats);
  }
  const existing = lstatOrUndefined(path);
  if (existing !== undefined) checkRegular(path, existing);
  let fd: number;
  try {
    // O_NOFOLLOW: a link planted after the check is not followed; O_EXCL: a new file is ours alone.
    const create = existing === undefined ? constants.O_CREAT | constants.O_EXCL : 0;
    fd = openSync(path, constants.O_RDWR | constants.O_NOFOLLOW | create, 0o600);
  } catch (error) {
    fail(path, describeCode(error));
  }
  let opened: Stats;
  try {
    opened = fstatSync(fd);
  } finally {
    closeSync(fd);
  }
  if (!opened.isFile()) fail(path, "is not a regular file");
  return {
    path,
    confirm() {
      const now = lstatOrUndefined(path);
      if (now === undefined || now.isSymbolicLink() || now.ino !== opened.ino || now.dev !== opened.dev) {
        fail(path, "was replaced while it was being opened (refused)");
      }
    },
  };
}
