// A small file the services keep state or a credential in (the gateway's budget and embedded state, the bridge's
// Teams session), read and replaced safely in a folder others may write to: a symbolic link or anything but a regular
// file at the path is refused, never followed, so that a planted link cannot turn a write into a write anywhere.
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
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";

/** The path holds a link or something other than a regular file; the message begins with the path. */
export class UnsafeFileError extends Error {
  override readonly name = "UnsafeFileError";
  readonly code = "EUNSAFE";
}

function unsafe(path: string, kind: string): UnsafeFileError {
  return new UnsafeFileError(`${path} is ${kind}: only a regular file is read or replaced there, never followed`);
}

/** Passes when the path is a regular file or absent. */
function refuseUnsafe(path: string): void {
  let kind: string;
  try {
    const stat = lstatSync(path);
    if (stat.isFile()) return;
    kind = stat.isSymbolicLink() ? "a symbolic link" : stat.isDirectory() ? "a directory" : "not a regular file";
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  throw unsafe(path, kind);
}

/**
 * The file's text; undefined when there is none. The path is checked, then opened without following links and
 * without blocking (a FIFO swapped in after the check must not hang the process), and checked again once open.
 */
export function readRegularFile(path: string): string | undefined {
  refuseUnsafe(path);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw unsafe(path, "a symbolic link");
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw unsafe(path, "not a regular file");
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces the file atomically: the text goes to a new temporary file with a random name created exclusively
 * (O_EXCL, so a planted file or link there is never followed or truncated), mode 0600, is fsynced, then renamed over
 * the path, which must be a regular file or absent. A crash at any point leaves the old text or the new, never a torn
 * file.
 */
export function replaceRegularFile(path: string, text: string): void {
  refuseUnsafe(path);
  const temporary = `${path}.${randomBytes(8).toString("hex")}.tmp`;
  const fd = openSync(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o600,
  );
  let renamed = false;
  try {
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    renamed = true;
  } finally {
    if (!renamed) unlinkQuietly(temporary);
  }
  syncFolder(path);
}

/** Removes the file if it is there. */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** The rename itself is durable once the folder is synced (not possible on every platform: best effort). */
function syncFolder(path: string): void {
  try {
    const dir = openSync(dirname(path), "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // best effort
  }
}
