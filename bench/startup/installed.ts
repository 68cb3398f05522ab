// Where bench/startup finds the bins: the workspace's dist/, or packed installs of both services in a temporary
// folder (what users run). The workspace shares one node_modules between the Nodes CI uses, and its better-sqlite3
// (the bridge's state file) is built for one of them; a packed install builds it for the running Node, so the bench
// never rebuilds the shared copy under engineers running tests on the other Node.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { installPacked } from "@switchboard/testkit/pack-install";
import { serviceBin } from "../service-bin.ts";

export interface Bins {
  gateway: string;
  bridge: string;
  remove(): void;
}

/** Whether the workspace's better-sqlite3 loads on the running Node. */
export function sqliteLoadsHere(root: string): boolean {
  const probe = spawnSync(process.execPath, ["-e", "new (require('better-sqlite3'))(':memory:').close()"], {
    cwd: root,
  });
  return probe.status === 0;
}

export function workspaceBins(root: string): Bins {
  return { gateway: serviceBin(root, "gateway"), bridge: serviceBin(root, "bridge"), remove() {} };
}

/** Packs and installs both services (a few minutes when native addons are built). */
export async function installedBins(root: string): Promise<Bins> {
  const timeoutMs = 600_000;
  const gateway = await installPacked(join(root, "packages/gateway"), { timeoutMs });
  try {
    const bridge = await installPacked(join(root, "packages/bridge"), { timeoutMs });
    return {
      gateway: gateway.bin("switchboard-gateway"),
      bridge: bridge.bin("switchboard-bridge"),
      remove() {
        gateway.remove();
        bridge.remove();
      },
    };
  } catch (error) {
    gateway.remove();
    throw error;
  }
}
