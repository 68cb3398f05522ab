// A Debian sid root file system with matrix-synapse installed, built with mmdebstrap: Synapse is in no Debian release
// this machine can install from, and sid's build needs its own Python, so it runs in a chroot. Building takes about a
// minute and 450 MB, so the tree is kept in a cache folder and reused for a week (sid moves daily; a week-old Synapse
// is still a real one). Anything that stops the build — not root, no mmdebstrap, the archive failing — is reported as
// a reason to skip, because it says nothing about the bridge.
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { runToExit } from "../run-to-exit.ts";
import { runningAsRoot } from "./server-files.ts";

const MAX_AGE_MS = 7 * 24 * 3600_000;
// A slow mirror must not hold CI for long: past this, the suite is skipped with the reason.
const BUILD_TIMEOUT_MS = 5 * 60_000;
const STAMP = ".switchboard-synapse-ready";

export type SynapseRoot = { root: string } | { skip: string };

/** The cache folder: $SWITCHBOARD_CI_CACHE (as .ci/run uses it) or ~/.cache/switchboard-ci. */
function cacheDir(): string {
  return (
    process.env.SWITCHBOARD_CI_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "switchboard-ci")
  );
}

function fresh(root: string): boolean {
  try {
    return Date.now() - statSync(join(root, STAMP)).mtimeMs < MAX_AGE_MS;
  } catch {
    return false;
  }
}

function findMmdebstrap(): string | undefined {
  return ["/usr/bin/mmdebstrap", "/usr/local/bin/mmdebstrap"].find((path) => existsSync(path));
}

/**
 * The root of a sid tree with Synapse, building it when the cached one is missing or older than a week. `npm test`
 * builds it before the tests (prepare-synapse.ts) and passes a failure on in SWITCHBOARD_SYNAPSE_SKIP.
 */
export async function synapseRoot(): Promise<SynapseRoot> {
  const root = process.env.SWITCHBOARD_SYNAPSE_ROOT ?? join(cacheDir(), "synapse-sid");
  if (fresh(root)) return { root };
  const skip = process.env.SWITCHBOARD_SYNAPSE_SKIP;
  if (skip) return { skip };
  if (!runningAsRoot()) return { skip: "building the Synapse chroot needs root (mmdebstrap --mode=root, chroot)" };
  const mmdebstrap = findMmdebstrap();
  if (mmdebstrap === undefined) {
    return { skip: "mmdebstrap is not installed (apt-get install mmdebstrap; .ci/run installs it)" };
  }
  mkdirSync(join(root, ".."), { recursive: true });
  const building = `${root}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const run = await runToExit({
    command: mmdebstrap,
    args: [
      "--quiet",
      "--mode=root",
      "--variant=apt",
      "--include=matrix-synapse",
      '--aptopt=APT::Install-Recommends "false"',
      // sid's Release file is often past its Valid-Until on machines whose clock runs ahead of the mirror.
      '--aptopt=Acquire::Check-Valid-Until "false"',
      "sid",
      building,
      "http://deb.debian.org/debian",
    ],
    timeoutMs: BUILD_TIMEOUT_MS,
  });
  // mmdebstrap sometimes fails only to unmount /proc at the very end; the tree is complete when Synapse is in it.
  await runToExit({ command: "umount", args: ["--lazy", join(building, "proc")], timeoutMs: 10_000 });
  if (!existsSync(join(building, "usr/lib/python3/dist-packages/synapse"))) {
    rmSync(building, { recursive: true, force: true });
    const why = run.timedOut
      ? `no result within ${BUILD_TIMEOUT_MS / 60_000} minutes`
      : (run.stderr || run.stdout).trim().split("\n").slice(-3).join(" / ");
    return { skip: `the Debian sid chroot with matrix-synapse could not be built (exit ${run.code}): ${why}` };
  }
  writeFileSync(join(building, STAMP), `${new Date().toISOString()}\n`);
  rmSync(root, { recursive: true, force: true });
  renameSync(building, root);
  return { root };
}
