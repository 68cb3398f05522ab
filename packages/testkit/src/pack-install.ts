// Packs a workspace package with `npm pack` and installs the tarball into an empty folder, as a user would, so that a
// test can run its bin there: this proves the package ships its compiled output and declares every dependency it
// needs at run time, and that nothing dev-only (tsx, the testkit) is needed to run it.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { runToExit } from "./run-to-exit.ts";

/** Tools only the repository needs (building, testing); an installed service must pull in none of them. */
export const DEV_ONLY_PACKAGES = [
  "tsx",
  "esbuild",
  "typescript",
  "@switchboard/testkit",
  "openai",
  "fast-check",
  "playwright-core",
];

export interface InstalledPackage {
  /** The folder the tarball was installed into (its node_modules holds the package and its dependencies). */
  readonly dir: string;
  /** The paths inside the tarball, e.g. "dist/cli.js". */
  readonly files: string[];
  /** The name of every package installed, at any depth. */
  readonly installed: string[];
  /** The path of one of the package's bins, as npm linked it. */
  bin(name: string): string;
  /** Removes the folder. */
  remove(): void;
}

/**
 * What is wrong with the tarball's contents for a service whose bin is `bin`: anything beside package.json, bin/ and
 * dist/, TypeScript sources or tests, a missing bin or compiled entry point, or a dev-only package installed with it.
 * An empty list means it ships as it should.
 */
const BUNDLED_COMMON = "node_modules/@switchboard/common/";

export function shippingProblems(pkg: InstalledPackage, bin: string, assetFolders: readonly string[] = []): string[] {
  const problems: string[] = [];
  for (const entry of [`bin/${bin}.cjs`, "dist/bundle/launch.cjs", "dist/cli.js"]) {
    if (!pkg.files.includes(entry)) problems.push(`${entry} is missing`);
  }
  for (const file of pkg.files) {
    // @switchboard/common travels inside each service (bundleDependencies), compiled like the service itself.
    const shipped = ["bin/", "dist/", BUNDLED_COMMON, ...assetFolders].some((folder) => file.startsWith(folder));
    if (!(file === "package.json" || shipped)) {
      problems.push(`${file} should not be shipped`);
    } else if (file.endsWith(".ts") || /\.test\./.test(file)) problems.push(`${file} is a source or a test`);
  }
  for (const name of pkg.installed) if (DEV_ONLY_PACKAGES.includes(name)) problems.push(`${name} is installed`);
  return problems;
}

// The npm that runs `npm test` exports its own settings (local prefix, the running package...) to its children; they
// would point these npm commands back at the repository.
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("npm_") && key !== "npm_config_cache" && key !== "npm_config_registry") continue;
    env[key] = value;
  }
  // Native addons (better-sqlite3) are built against the headers of the Node running the test, not the machine's
  // default Node's (CI runs the tests on two Nodes).
  env.npm_config_nodedir = resolve(dirname(process.execPath), "..");
  return env;
}

async function npm(args: string[], cwd: string, timeoutMs: number): Promise<string> {
  const run = await runToExit({ command: "npm", args, cwd, env: cleanEnv(), timeoutMs });
  if (run.code !== 0) {
    const why = run.timedOut ? `timed out after ${timeoutMs} ms` : `exit ${run.code ?? run.signal}`;
    throw new Error(`npm ${args.join(" ")} failed (${why})\n${run.stderr}\n${run.stdout}`);
  }
  return run.stdout;
}

/**
 * The package as its prepack makes it (built; @switchboard/common bundled in its node_modules), in a folder of its
 * own: packing in place would put that bundled copy where the service's bins, run by other tests meanwhile, resolve
 * @switchboard/common from.
 */
async function stagePackage(packageDir: string, into: string, timeoutMs: number): Promise<string> {
  const root = join(packageDir, "..", "..");
  const name = basename(packageDir);
  const build = await runToExit({
    command: process.execPath,
    args: [join(root, "scripts", "build.mjs"), "--if-stale", "common", name],
    cwd: root,
    timeoutMs,
  });
  if (build.code !== 0) throw new Error(`building ${name} failed:\n${build.stderr}`);
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
    files?: string[];
    bundleDependencies?: string[];
  };
  const stage = join(into, "stage");
  mkdirSync(stage);
  for (const entry of ["package.json", ...(manifest.files ?? [])]) {
    if (!entry.startsWith("!") && existsSync(join(packageDir, entry))) {
      cpSync(join(packageDir, entry), join(stage, entry), { recursive: true });
    }
  }
  if (manifest.bundleDependencies?.includes("@switchboard/common")) {
    const common = join(root, "packages", "common");
    for (const entry of ["package.json", "dist"]) {
      cpSync(join(common, entry), join(stage, "node_modules", "@switchboard", "common", entry), { recursive: true });
    }
  }
  return stage;
}

/**
 * `npm pack` of `packageDir` as its prepack would make it (see stagePackage), then `npm install` of the tarball into
 * an empty folder. Dependencies come from npm's cache when it has them (`--prefer-offline`), from the registry otherwise.
 */
export async function installPacked(
  packageDir: string,
  options: { timeoutMs?: number } = {},
): Promise<InstalledPackage> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const dir = mkdtempSync(join(tmpdir(), "pack-install-"));
  try {
    const stage = await stagePackage(packageDir, dir, timeoutMs);
    const packed = await npm(["pack", "--ignore-scripts", "--json", "--pack-destination", dir], stage, timeoutMs);
    rmSync(stage, { recursive: true, force: true });
    const [report] = JSON.parse(packed.slice(packed.search(/^\[/m))) as {
      filename: string;
      files: { path: string }[];
    }[];
    if (!report) throw new Error(`npm pack reported nothing:\n${packed}`);
    writeFileSync(join(dir, "package.json"), `${JSON.stringify({ private: true })}\n`);
    const install = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", "--prefix", dir];
    await npm([...install, join(dir, report.filename)], dir, timeoutMs);
    const tree = await npm(["ls", "--json", "--all", "--prefix", dir], dir, timeoutMs);
    return {
      dir,
      files: report.files.map((file) => file.path),
      installed: [...new Set(allNames(JSON.parse(tree)))].sort(),
      bin: (name) => join(dir, "node_modules", ".bin", name),
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Names of the installed packages; an optional peer dependency that is not installed is listed as `{}`. */
function allNames(tree: { dependencies?: Record<string, unknown> }): string[] {
  return Object.entries(tree.dependencies ?? {}).flatMap(([name, sub]) => {
    const node = sub as { version?: string; dependencies?: Record<string, unknown> };
    return node.version === undefined ? [] : [name, ...allNames(node)];
  });
}
