// One process per state file. A service that keeps its state in a file rewrites the whole file from memory; two
// processes on one file would each overwrite what the other wrote (a key created on one gone after the other's next
// write). The owner is named in `<file>.lock`, created exclusively; a later process finds it and is refused, unless
// the owner is gone (a crash, a kill -9), which is recognised on the same host and taken over.
import { closeSync, constants, openSync, readFileSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { readRegularFile, unlinkQuietly } from "./regular-file.ts";

/** Another live process holds the file. The message says who, and what to do. */
export class FileInUseError extends Error {
  override readonly name = "FileInUseError";
  readonly code = "EINUSE";
}

export interface FileLock {
  /** Gives the file up (the lock file is removed). Idempotent. */
  release(): void;
}

interface Owner {
  pid: number;
  host: string;
  /** The owner's start time as the kernel counts it (/proc/<pid>/stat), which tells its pid reused by another. */
  started?: string;
}

/** The lock files this process holds: a second holder in the same process is refused too. */
const heldHere = new Set<string>();

/**
 * Takes `path` for this process, or throws FileInUseError naming the owner. In a folder where this process cannot
 * create files it takes nothing (it cannot write the file there either). `what` names the file in the message ("state
 * file"); `remedy` says how to run more than one process (another path, a shared store).
 */
export function lockFile(path: string, what: string, remedy: string): FileLock {
  const lockPath = `${path}.lock`;
  const me: Owner = { pid: process.pid, host: hostname(), ...startedOf(process.pid) };
  for (let attempt = 0; ; attempt++) {
    const created = tryCreate(lockPath, me);
    // Nobody can be overwritten by a process that cannot write in the file's folder: it starts, and its writes fail
    // and are reported as before (a read-only /etc beside the config, a folder not made yet).
    if (created === "unwritable") return { release() {} };
    if (created === "created") break;
    const owner = readOwner(lockPath);
    if (owner !== undefined && !isGone(owner, lockPath, me)) {
      const where = owner.host === me.host ? `process ${owner.pid}` : `process ${owner.pid} on ${owner.host}`;
      throw new FileInUseError(
        `${what} ${path} is in use by ${where} (${lockPath}): two processes on one file would overwrite each ` +
          `other's changes. ${remedy}; remove ${lockPath} only if that process is gone`,
      );
    }
    // An owner that is gone, or a lock file that names none (a crash while it was being written): taken over once.
    if (attempt > 0)
      throw new FileInUseError(`${what} ${path}: cannot take over ${lockPath}; remove it and start again`);
    unlinkQuietly(lockPath);
  }
  heldHere.add(lockPath);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      heldHere.delete(lockPath);
      unlinkQuietly(lockPath);
    },
  };
}

/** Folders where this process cannot create a file (so cannot write the state file either). */
const UNWRITABLE = new Set(["ENOENT", "EACCES", "EPERM", "EROFS", "ENOTDIR"]);

/** Creates the lock file naming `me`, unless one is there. O_EXCL never follows a planted link. */
function tryCreate(lockPath: string, me: Owner): "created" | "exists" | "unwritable" {
  let fd: number;
  try {
    fd = openSync(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST") return "exists";
    if (UNWRITABLE.has(code)) return "unwritable";
    throw error;
  }
  try {
    writeSync(fd, `${JSON.stringify(me)}\n`);
  } finally {
    closeSync(fd);
  }
  return "created";
}

/** The owner the lock file names; undefined when it names none (empty, torn, not ours). */
function readOwner(lockPath: string): Owner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(readRegularFile(lockPath) ?? "");
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { pid, host, started } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0 || typeof host !== "string") return undefined;
  return { pid: pid as number, host, ...(typeof started === "string" ? { started } : {}) };
}

/**
 * Whether the owner is certainly gone. Only on this host can that be known: its pid is not running, or runs another
 * process (a different start time), or is this process, which does not hold the lock (a restart that got the same
 * pid, as in a container).
 */
function isGone(owner: Owner, lockPath: string, me: Owner): boolean {
  if (owner.host !== me.host) return false;
  if (owner.pid === me.pid) return !heldHere.has(lockPath);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  const now = startedOf(owner.pid).started;
  return owner.started !== undefined && now !== undefined && now !== owner.started;
}

/** The process's start time (field 22 of /proc/<pid>/stat, after the parenthesised name), where /proc exists. */
function startedOf(pid: number): { started?: string } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const started = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return started === undefined ? {} : { started };
  } catch {
    return {};
  }
}
