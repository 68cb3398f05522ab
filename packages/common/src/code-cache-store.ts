// Where code-cache.ts keeps V8's compiled code between starts: one file per bundle, Node and machine in a folder of
// the user's own. The file's content becomes code V8 runs, so the folder must be one nobody else can write to: it is
// made 0700, and used only while it is a real folder (not a symbolic link) owned by this user and writable by no one
// else. Entries are written to a fresh temporary file (O_EXCL: never through a name someone planted) and renamed over
// the old one, so a reader sees a whole entry or none; each carries the SHA-256 of its payload, so a torn or corrupt
// file reads as missing. Nothing here throws: without a usable folder there is simply no cache.
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

const MAGIC = Buffer.from("SBV8CC1\n");
const DIGEST_BYTES = 32;
/** Entries of one bundle name kept (the newest): a few installs or Node versions side by side, not every one ever. */
const KEPT_PER_NAME = 3;

export interface CodeCacheEntry {
  /** The payload written last, or undefined when there is none (or it is unusable). */
  read(): Buffer | undefined;
  /** Replaces the payload; false when it could not be written (nothing else happens then). */
  write(payload: Buffer): boolean;
}

const digest = (data: Buffer) => createHash("sha256").update(data).digest();

/** Whether `path` is a folder of this user's that only this user can write to (it is never followed if a link). */
function isPrivateFolder(path: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return false; // no owner to check against (Windows): no cache
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * The entry `${name}-${key}` in `folder`, where `key` names exactly what the payload was compiled from (the caller
 * hashes the source, the Node version, the architecture). The folder is created on the first write.
 */
export function codeCacheEntry(folder: string, name: string, key: string): CodeCacheEntry {
  const path = join(folder, `${name}-${key}.v8`);
  return {
    read() {
      if (!isPrivateFolder(folder)) return undefined;
      let fd: number | undefined;
      try {
        fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
        const stat = fstatSync(fd);
        if (!stat.isFile() || stat.uid !== process.getuid?.()) return undefined;
        const data = readFileSync(fd);
        const head = MAGIC.length + DIGEST_BYTES;
        if (data.length <= head || !data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
        const payload = data.subarray(head);
        return digest(payload).equals(data.subarray(MAGIC.length, head)) ? payload : undefined;
      } catch {
        return undefined;
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    },
    write(payload) {
      try {
        mkdirSync(folder, { recursive: true, mode: 0o700 });
      } catch {
        return false;
      }
      if (!isPrivateFolder(folder)) return false;
      const temporary = `${path}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
      let fd: number | undefined;
      try {
        fd = openSync(
          temporary,
          constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
          0o600,
        );
        for (const part of [MAGIC, digest(payload), payload]) {
          for (let done = 0; done < part.length; ) done += writeSync(fd, part, done);
        }
        closeSync(fd);
        fd = undefined;
        renameSync(temporary, path);
      } catch {
        if (fd !== undefined) closeSync(fd);
        try {
          unlinkSync(temporary);
        } catch {
          // never created, or already renamed
        }
        return false;
      }
      pruneOlder(folder, name);
      return true;
    },
  };
}

/** Removes all but the newest KEPT_PER_NAME entries of `name` (those of other installs or Node versions). */
function pruneOlder(folder: string, name: string): void {
  try {
    const entries = readdirSync(folder)
      .filter((file) => file.startsWith(`${name}-`) && file.endsWith(".v8"))
      .map((file) => ({ file, mtime: statSync(join(folder, file)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const { file } of entries.slice(KEPT_PER_NAME)) unlinkSync(join(folder, file));
  } catch {
    // Another process pruned at the same time: whatever is left is pruned next time.
  }
}
