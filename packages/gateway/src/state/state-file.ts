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

/** Why a state file's path is refused: it must be a regular file, never a link an attacker could point elsewhere. */
class UnsafeStateFile extends Error {
  readonly code = "EUNSAFE";
}

/** Passes when the path is a regular file or absent; throws UnsafeStateFile for a symbolic link or anything else. */
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
  throw new UnsafeStateFile(`${path} is ${kind}: the gateway only reads and replaces a regular file there`);
}

/**
 * Reads a state file; undefined when there is none. A symbolic link (even to a regular file) or anything but a
 * regular file is refused: the path is opened without following links and checked once open.
 */
export function readStateFile(path: string): string | undefined {
  refuseUnsafe(path);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP")
      throw new UnsafeStateFile(`${path} is a symbolic link: the gateway only reads a regular file`);
    throw error;
  }
  try {
    if (!fstatSync(fd).isFile()) throw new UnsafeStateFile(`${path} is not a regular file`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces a state file atomically and safely in a folder others may write to: the text goes to a new temporary file
 * with a random name created exclusively (O_EXCL, so a planted file or link there is never followed or truncated),
 * is fsynced, then renamed over the state file, which must be a regular file or absent. A crash at any point leaves
 * either the old state or the new one, never a torn file.
 */
export function replaceStateFile(path: string, text: string): void {
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

function unlinkQuietly(path: string): void {
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
