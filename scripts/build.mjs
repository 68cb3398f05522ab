// Compiles each service's src/ into its dist/, which is what the bins run.
//   node scripts/build.mjs [--if-stale] [bridge|gateway]...
// tsc only emits here (tsconfig.build.json: noCheck, noResolve): type checking is `npm test`'s and `npm run check`'s
// job, and emitting alone takes about a second per package instead of ten. Files under src/ that are not TypeScript
// (a page, a stylesheet, a JSON table) are copied beside the output, so a new file needs no change here. Test files
// (*.test.*) are never shipped. A build starts from an empty dist/, so a source file deleted or renamed does not
// leave its old output behind.
// The services are then bundled with esbuild (bundle() below) into CommonJS scripts: the bins run
// dist/bundle/launch.cjs, which runs the service's bundle with V8's code cache, one file instead of the 600-850
// modules that resolving, reading and translating one by one made most of their start-up.
// `--if-stale` builds only a package whose dist/ is missing or older than anything under its src/ (files and
// folders: a folder's mtime changes when an entry is added, removed or renamed) or its build config (this script
// included).
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { root } from "./ensure-deps.mjs";

/** common first in the list: the services import it (each package compiles alone, so they build side by side). */
export const BUILT_PACKAGES = ["common", "bridge", "gateway"];
/** The packages whose bins run a bundle (dist/bundle/launch.cjs); common is bundled into them. */
const BUNDLED_PACKAGES = ["bridge", "gateway"];
const STAMP = ".build-stamp";

const packageDir = (name) => join(root, "packages", name);

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** Whether dist/ is missing or older than the sources and the build configs it was compiled from. */
export function isStale(name) {
  const stamp = join(packageDir(name), "dist", STAMP);
  if (!existsSync(stamp)) return true;
  const inputs = [
    join(packageDir(name), "src"),
    join(packageDir(name), "tsconfig.build.json"),
    join(root, "tsconfig.json"),
    fileURLToPath(import.meta.url),
    // Bundled in: a service's bundle is stale when common's sources changed.
    ...(BUNDLED_PACKAGES.includes(name) ? [join(packageDir("common"), "src")] : []),
  ];
  return Math.max(...inputs.map(newestMtime)) > statSync(stamp).mtimeMs;
}

const isTest = (file) => /\.test\.[^.]+$/.test(file);

function copyAssets(from, to) {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) copyAssets(source, join(to, entry.name));
    else if (!entry.name.endsWith(".ts") && !isTest(entry.name)) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, join(to, entry.name));
    }
  }
}

function runTsc(name) {
  const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
  const child = spawn(process.execPath, [tsc, "-p", join(packageDir(name), "tsconfig.build.json")], {
    cwd: root,
    stdio: "inherit",
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal)));
}

/**
 * Packages left out of the bundles, loaded from node_modules at run time as before:
 * - better-sqlite3: a native addon; pino-pretty: loaded with createRequire only when a person reads the logs;
 * - what loads only after listening, on first use, and reads files of its own or starts threads by path: the
 *   bridge's protocol libraries with grammy's transport, node-fetch (each protocol's own code is a chunk of the
 *   bundle, loaded on its first connect),
 *   ioredis (only with `[state] backend = "redis"`) and mDNS discovery.
 * Imported lazily in the sources, they are still loaded on first use only (require() where the import was).
 */
const EXTERNAL = [
  "better-sqlite3",
  "pino-pretty",
  "ioredis",
  "bonjour-service",
  "discord.js",
  "matrix-js-sdk",
  "@slack/*",
  "@xmpp/*",
  "grammy",
  "node-fetch",
  "irc-framework",
  "@mattermost/*",
  "@microsoft/microsoft-graph-client",
  "@tf2pickup-org/*",
];

/**
 * esbuild escapes what is not ASCII in strings, templates, regular expressions and names, but leaves comments as
 * they are; escaping their characters too makes the whole file ASCII, which code-cache.ts reads as a one-byte string.
 * (A \uXXXX escape of each UTF-16 unit means the same as the character in a string, a template or a regular
 * expression, so the code would be unchanged even where esbuild had left one.)
 */
const asciiOnly = (text) =>
  text.replaceAll(/[^\0-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * What each service is bundled into, one CommonJS file per entry, dist/bundle/<name>.cjs:
 * - `launcher`: what the bin requires (bin/*.cjs). Small, so that it costs little to compile at every start: it reads
 *   what it must (the bridge's -version), turns on the compile caches and runs the cached bundle.
 * - `cached`: the service, which the launcher runs through @switchboard/common/code-cache (V8's code cache needs a
 *   script, not an ES module). Its lazy imports are inlined and evaluated on first use.
 * CommonJS throughout: an ES module entry would start Node's ES module loader, 10-20 ms of CPU at every start.
 */
const ENTRIES = {
  gateway: { launcher: "cli/launch.ts", cached: "cli/program.ts" },
  bridge: { launcher: "launch.ts", cached: "run.ts" },
};

/** Whether `specifier` names a package in EXTERNAL (a pattern "@scope/*" covers the scope; a package its subpaths). */
const isExternalPackage = (specifier) =>
  EXTERNAL.some((pattern) =>
    pattern.endsWith("/*")
      ? specifier.startsWith(pattern.slice(0, -1))
      : specifier === pattern || specifier.startsWith(`${pattern}/`),
  );

/**
 * In a CommonJS bundle an external package is loaded with require(), which since Node 20.19 loads an ES-module-only
 * package (matrix-js-sdk, @xmpp/*) too, as its namespace. esbuild then gives a default import the whole namespace
 * instead of its default export: it takes module.exports as the default, which is right for CommonJS only. So each
 * import of an external package goes through a small module that takes what Node's `import` would: an ES module's
 * default export, or a CommonJS package's module.exports; named imports are the loaded object's properties either way.
 */
const nodeImportDefaults = {
  name: "node-import-defaults",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path, kind, namespace }) => {
      if (namespace === "node-import") return { path, external: true };
      if (kind !== "import-statement" || !isExternalPackage(path)) return undefined;
      return { path, namespace: "node-import" };
    });
    build.onLoad({ filter: /.*/, namespace: "node-import" }, ({ path }) => {
      const specifier = JSON.stringify(path);
      const contents = [
        `export * from ${specifier};`,
        `const loaded = require(${specifier});`,
        'export default Object.prototype.toString.call(loaded) === "[object Module]" ? loaded.default : loaded;',
      ].join("\n");
      return { contents, loader: "js" };
    });
  },
};

/**
 * Node modules that bundled packages require at their top but use only on paths the services do not take at start:
 * fastify's https and http2 (a server made with those options), ws's https and tls (its client's wss: connections),
 * prom-client's https (its Pushgateway). Each such require gets a stand-in that requires the module on first use:
 * http2 and https cost 7 and 3 ms of every start, before the port opens, in both services. Listed by importer, and
 * only where the module is used through member reads inside functions (a top-level destructuring would load it at
 * once: no gain, no harm). test/lazy-builtins.test.ts in each service checks that none is loaded before listening;
 * the bridge's Mattermost test connects its bin over wss:, through the stand-ins.
 */
const LAZY_BUILTINS = [
  { importer: "/node_modules/fastify/lib/server.js", modules: ["node:https", "node:http2"] },
  { importer: "/node_modules/ws/lib/websocket.js", modules: ["https", "tls"] },
  { importer: "/node_modules/prom-client/lib/pushgateway.js", modules: ["https"] },
];

const lazyBuiltins = {
  name: "lazy-builtins",
  setup(build) {
    build.onResolve({ filter: /^(node:)?(https|http2|tls)$/ }, ({ path, importer }) => {
      const lazy = LAZY_BUILTINS.some((entry) => importer.endsWith(entry.importer) && entry.modules.includes(path));
      return lazy ? { path: path.replace(/^node:/, ""), namespace: "lazy-builtin" } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, ({ path }) => ({
      // A read of any property loads the module (once) and reads it there; `in` asks it too.
      contents: [
        "let loaded;",
        `const load = () => (loaded ??= require(${JSON.stringify(`node:${path}`)}));`,
        "module.exports = new Proxy({}, { get: (_, key) => load()[key], has: (_, key) => key in load() });",
      ].join("\n"),
      loader: "js",
    }));
  },
};

/**
 * Bundles a service's entries (ENTRIES) with their dependencies (less EXTERNAL) into dist/bundle/. The unbundled dist/
 * beside it stays: the gateway's worker threads start on dist/ modules by URL (threads/module-worker.ts, the
 * translation thread's REQUEST_MODULE), and tests import dist/ modules. So that those URLs, the dashboard's files and
 * the package.json (version) are found as before, each source file's `import.meta.url` becomes the URL its tsc output
 * has in dist/ (every output file sits in dist/bundle/, so "../<path>.js" relative to the bundle's own URL).
 */
async function bundle(name) {
  const { build: esbuild } = await import("esbuild");
  const src = join(packageDir(name), "src");
  const outdir = join(packageDir(name), "dist", "bundle");
  const moduleUrls = {
    name: "dist-module-urls",
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
        const text = await readFile(path, "utf8");
        const rel = relative(src, path);
        if (rel.startsWith("..") || !text.includes("import.meta.url")) return { contents: text, loader: "ts" };
        const distUrl = `new URL(${JSON.stringify(`../${rel.replace(/\.ts$/, ".js")}`)}, import.meta.url).href`;
        return { contents: text.replaceAll(/\bimport\.meta\.url\b/g, distUrl), loader: "ts" };
      });
    },
  };
  // @switchboard/common from its sources, not its dist/, which may be being rebuilt beside this build.
  const commonSources = {
    name: "common-sources",
    setup(build) {
      build.onResolve({ filter: /^@switchboard\/common(\/|$)/ }, ({ path }) => ({
        path: join(packageDir("common"), "src", `${path.slice("@switchboard/common/".length) || "index"}.ts`),
      }));
    },
  };
  const { launcher, cached } = ENTRIES[name];
  try {
    for (const entry of [launcher, cached]) {
      const outfile = join(outdir, `${basename(entry, ".ts")}.cjs`);
      await esbuild({
        bundle: true,
        platform: "node",
        target: "node20.19",
        external: EXTERNAL,
        logLevel: "warning",
        entryPoints: [join(src, entry)],
        outfile,
        format: "cjs",
        plugins: [commonSources, moduleUrls, nodeImportDefaults, lazyBuiltins],
        // The bundle's own URL stands for import.meta.url (the sources' URLs are relative to it, as above).
        define: { "import.meta.url": "__bundleUrl", "import.meta.resolve": "__bundleResolve" },
        // "use strict" first, as in an ES module: esbuild's own comes after the banner, where it is no directive.
        banner: {
          js: [
            '"use strict";',
            'var __bundleUrl = require("node:url").pathToFileURL(__filename).href;',
            'var __bundleResolve = (specifier) => require("node:url").pathToFileURL(require.resolve(specifier)).href;',
          ].join("\n"),
        },
      });
      await writeFile(outfile, asciiOnly(await readFile(outfile, "utf8")));
    }
    return true;
  } catch (error) {
    console.error(`build: esbuild failed for ${name}: ${error.message}`);
    return false;
  }
}

/** Builds one package from scratch; resolves to whether tsc (and for a service, esbuild) succeeded. */
export async function build(name) {
  // The stamp gets the build's start time: a source saved while tsc runs makes the next check rebuild.
  const started = new Date();
  const dist = join(packageDir(name), "dist");
  rmSync(dist, { recursive: true, force: true });
  const status = await runTsc(name);
  if (status !== 0) {
    console.error(`build: tsc failed for ${name} (${status})`);
    return false;
  }
  copyAssets(join(packageDir(name), "src"), dist);
  if (BUNDLED_PACKAGES.includes(name) && !(await bundle(name))) return false;
  writeFileSync(join(dist, STAMP), "");
  utimesSync(join(dist, STAMP), started, started);
  return true;
}

/** Builds the named packages (all by default), or with `ifStale` only those whose dist/ is stale. Exits on failure. */
export async function buildPackages({ names = BUILT_PACKAGES, ifStale = false } = {}) {
  const todo = ifStale ? names.filter(isStale) : names;
  if (todo.length === 0) return;
  const startedAt = Date.now();
  const results = await Promise.all(todo.map(build));
  if (results.includes(false)) process.exit(1);
  const where = todo.map((name) => relative(root, join(packageDir(name), "dist"))).join(", ");
  console.error(`build: ${where} (${Date.now() - startedAt} ms)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const names = args.filter((arg) => !arg.startsWith("--"));
  const unknown = names.filter((name) => !BUILT_PACKAGES.includes(name));
  if (unknown.length > 0) {
    console.error(`build: unknown package ${unknown.join(", ")}; known: ${BUILT_PACKAGES.join(", ")}`);
    process.exit(2);
  }
  await buildPackages({ names: names.length > 0 ? names : BUILT_PACKAGES, ifStale: args.includes("--if-stale") });
}
