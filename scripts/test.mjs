// `npm test`: checks the Debian packages the tests need (installing the missing ones as root, else stopping with the
// command that installs them), installs the npm dependencies when missing, builds dist/ when stale, type checks,
// lints, then runs every test file with node's test runner. Node 20's runner takes no globs, so the test files are
// listed here: the `*.test.ts` and `*.test.mjs` files under packages/, bench/ and scripts/.
// Tests import the TypeScript sources through tsx; the tests that spawn a service's bin run it as users do, from its
// compiled dist/, which is why the build comes first (also for `npm test -- <filter>`).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { buildPackages } from "./build.mjs";
import { ensureDependencies, ensureNativeAddons, root } from "./ensure-deps.mjs";
import { ensureSystemPackages } from "./ensure-system-packages.mjs";

// First, also with a filter: a test must never fail on a server that is not installed.
if (!ensureSystemPackages()) process.exit(1);
ensureDependencies();
ensureNativeAddons();
await buildPackages({ ifStale: true });

function run(label, command, args, env = process.env) {
  console.log(`\n== ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) {
    console.error(`\n${label} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status || 1);
  }
}

function testFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name.startsWith(".") ? [] : testFiles(path);
    return /\.test\.(ts|mjs)$/.test(entry.name) ? [relative(root, path)] : [];
  });
}

// Optional filter: `npm test -- bridge` runs only the test files whose path contains "bridge".
const filters = process.argv.slice(2);
const files = ["packages", "bench", "scripts"]
  .flatMap((dir) => testFiles(join(root, dir)))
  .sort()
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)));

if (filters.length === 0) {
  run("type check (tsc --noEmit)", "npx", ["tsc", "--noEmit", "-p", "."]);
  run("lint (biome)", "npx", ["biome", "check", "."]);
  // package.json "knip": dependencies declared where they are imported and none declared unused; no unused file, export
  // or exported type.
  run("dependencies (knip)", "npx", ["knip"]);
  // .dependency-cruiser.cjs: the layers of both services point one way, and no import loops.
  run("layers (dependency-cruiser)", "npx", [
    "depcruise",
    "packages/gateway/src",
    "packages/bridge/src",
    "--output-type",
    "err",
  ]);
}
// The real Synapse lives in a Debian sid chroot whose first build takes a minute or two: done here, before the
// tests, so that it never runs into a test's timeout. A build that cannot be done skips that suite, with the reason.
const env = { ...process.env };
if (files.some((file) => file.includes("matrix-synapse"))) {
  console.log("\n== Synapse chroot for the Matrix test");
  const prepared = spawnSync(
    process.execPath,
    ["--import", "tsx", join(root, "packages/testkit/src/chat/prepare-synapse.ts")],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = prepared.stdout.trim().split("\n").pop() ?? "";
  console.log(line || `could not be prepared (exit ${prepared.status ?? prepared.signal})`);
  if (!line.startsWith("ready ")) {
    env.SWITCHBOARD_SYNAPSE_SKIP = line.replace(/^skip /, "") || "the Synapse chroot could not be prepared";
  }
}

const concurrency = process.env.TEST_CONCURRENCY ?? "4";
run(
  `tests (${files.length} files)`,
  process.execPath,
  [
    "--import",
    "tsx",
    "--test",
    `--test-concurrency=${concurrency}`,
    // Per test file and per test: the packed bridge's install builds better-sqlite3 from source (no prebuilt
    // binaries here), about 2 minutes of CPU: 130 s alone, over 300 s beside three other test files on two cores.
    // The same bound as that install's own (test/package.test.ts).
    "--test-timeout=600000",
    "--test-reporter=spec",
    ...files,
  ],
  env,
);
