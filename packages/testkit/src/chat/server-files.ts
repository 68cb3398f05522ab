// What the server launchers share: finding the binary, a private temp dir, and running as a service user when root.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** Throws a message that says which Debian package to install when `binary` is not on PATH (or in /usr/sbin). */
export function requireBinary(binary: string, aptPackage: string): string {
  const dirs = [...(process.env.PATH ?? "").split(":"), "/usr/sbin", "/usr/bin"].filter(Boolean);
  for (const dir of dirs) {
    const path = join(dir, binary);
    try {
      if (statSync(path).isFile()) return path;
    } catch {}
  }
  throw new Error(
    `${binary} is not installed; tests that use a real server need the Debian package "${aptPackage}" ` +
      `(apt-get install -y --no-install-recommends ${aptPackage}; .ci/run installs it)`,
  );
}

/** A fresh mktemp-style directory, readable by every user (a server dropping privileges must still read its config). */
export function makeServerDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}.`));
  chmodSync(dir, 0o755);
  return dir;
}

export function removeServerDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export const runningAsRoot = (): boolean => process.getuid?.() === 0;

/** uid and gid of a system user, read with `id` (no /etc/passwd parsing). */
export function systemUser(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync("id", ["-u", name], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", name], { encoding: "utf8" }).trim());
  return { uid, gid };
}

/** Gives `dir` and everything in it to uid:gid (as root, so a server dropped to its own user can write its data). */
export function chownTree(dir: string, owner: { uid: number; gid: number }): void {
  chownSync(dir, owner.uid, owner.gid);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) chownTree(path, owner);
    else chownSync(path, owner.uid, owner.gid);
  }
}

/**
 * Command and args that run `command` as `user` when we are root (setpriv execs, so the PID stays the server's), or
 * as ourselves otherwise.
 */
export function asUser(user: string, command: string, args: string[]): { command: string; args: string[] } {
  if (!runningAsRoot() || userInfo().username === user) return { command, args };
  return { command: "setpriv", args: [`--reuid=${user}`, `--regid=${user}`, "--init-groups", command, ...args] };
}

/** <domain>.crt and <domain>.key in `dir` (where Prosody looks for a host's certificate), valid for a day; made with openssl. */
export function selfSignedCertificate(dir: string, domain: string): void {
  const openssl = requireBinary("openssl", "openssl");
  execFileSync(
    openssl,
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", `/CN=${domain}`]
      .concat(["-addext", `subjectAltName=DNS:${domain}`])
      .concat(["-keyout", join(dir, `${domain}.key`), "-out", join(dir, `${domain}.crt`)]),
    { stdio: "ignore", timeout: 15_000 },
  );
}
