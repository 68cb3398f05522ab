import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { loadCachedBundle } from "../src/code-cache.ts";

const root = mkdtempSync(join(tmpdir(), "code-cache-test-"));
after(() => rmSync(root, { recursive: true, force: true }));
const loader = pathToFileURL(join(import.meta.dirname, "../src/code-cache.ts")).href;

/** A bundle whose result shows what it read at run time (an env var) and which build of it ran. */
function writeBundle(dir: string, build: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "entry.cjs");
  const body = Array.from({ length: 200 }, (_, i) => `function f${i}(x) { return x * ${i} + ${i}; }`).join("\n");
  writeFileSync(
    file,
    `${body}\nexports.result = () => [${JSON.stringify(build)}, process.env.CODE_CACHE_TEST_VALUE, f7(6), require("node:path").basename(__filename)].join(" ");\n`,
  );
  return file;
}

/** One process start: loads the bundle, declares itself started, prints whether the cache was used and the result. */
function start(
  file: string,
  cacheDir: string,
  env: Record<string, string> = {},
): { fromCache: boolean; result: string } {
  const script = [
    `import { loadCachedBundle } from ${JSON.stringify(loader)};`,
    `const bundle = loadCachedBundle(new URL(${JSON.stringify(pathToFileURL(file).href)}), "test-bundle");`,
    "bundle.started();",
    "console.log(JSON.stringify({ fromCache: bundle.fromCache, result: bundle.exports.result() }));",
  ].join("\n");
  const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, NODE_COMPILE_CACHE: cacheDir, NODE_DISABLE_COMPILE_CACHE: "", ...env },
    timeout: 30_000,
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

const entries = (cacheDir: string) => {
  const folder = join(cacheDir, "switchboard-v8");
  return existsSync(folder) ? readdirSync(folder).map((name) => join(folder, name)) : [];
};

describe("loadCachedBundle", () => {
  it("is undefined without the bundle file (the caller imports the module instead)", () => {
    assert.equal(loadCachedBundle(pathToFileURL(join(root, "missing.cjs")), "test-bundle"), undefined);
  });

  it("writes the cache once started, uses it at the next start, and still reads the environment at run time", () => {
    const dir = join(root, "reuse");
    const file = writeBundle(dir, "build-1");
    const cache = join(dir, "cache");
    assert.deepEqual(start(file, cache, { CODE_CACHE_TEST_VALUE: "first" }), {
      fromCache: false,
      result: "build-1 first 49 entry.cjs",
    });
    const [entry] = entries(cache);
    assert.ok(entry, "an entry was written at exit");
    assert.equal(lstatSync(entry).mode & 0o777, 0o600);
    assert.equal(lstatSync(join(cache, "switchboard-v8")).mode & 0o777, 0o700);
    assert.deepEqual(start(file, cache, { CODE_CACHE_TEST_VALUE: "second" }), {
      fromCache: true,
      result: "build-1 second 49 entry.cjs",
    });
  });

  it("never runs the code of another build: a changed bundle gets an entry of its own", () => {
    const dir = join(root, "changed");
    const cache = join(dir, "cache");
    start(writeBundle(dir, "build-1"), cache);
    assert.equal(start(writeBundle(dir, "build-1"), cache).fromCache, true);
    // Same length, other content: V8 itself would only compare the length.
    assert.deepEqual(start(writeBundle(dir, "build-2"), cache), { fromCache: false, result: "build-2  49 entry.cjs" });
    assert.equal(entries(cache).length, 2);
  });

  it("starts normally on a corrupt, truncated or foreign entry, and replaces it", () => {
    const dir = join(root, "corrupt");
    const file = writeBundle(dir, "build-1");
    const cache = join(dir, "cache");
    start(file, cache);
    const [entry] = entries(cache);
    const good = readFileSync(entry!);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 10]! ^= 0xff;
    for (const bad of [flipped, good.subarray(0, good.length / 2), Buffer.alloc(0), Buffer.from("not a cache")]) {
      writeFileSync(entry!, bad);
      assert.deepEqual(start(file, cache), { fromCache: false, result: "build-1  49 entry.cjs" });
      assert.equal(start(file, cache).fromCache, true, "the next start has a good entry again");
    }
  });

  it("with hostile entry content, runs the bundle as built, never the content", () => {
    const dir = join(root, "hostile");
    const file = writeBundle(dir, "build-1");
    const cache = join(dir, "cache");
    start(file, cache);
    const [entry] = entries(cache);
    const good = readFileSync(entry!);
    const previous = process.env.NODE_COMPILE_CACHE;
    process.env.NODE_COMPILE_CACHE = cache;
    try {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 4096 }), fc.boolean(), fc.nat(), (bytes, keepHeader, at) => {
          // Either random bytes, or the real header (magic and a digest that no longer matches) with bytes spliced in.
          const content = keepHeader
            ? Buffer.concat([good.subarray(0, 40 + (at % 64)), Buffer.from(bytes), good.subarray(40 + (at % 64) + 1)])
            : Buffer.from(bytes);
          if (content.equals(good)) return;
          writeFileSync(entry!, content);
          const bundle = loadCachedBundle<{ result(): string }>(pathToFileURL(file), "test-bundle");
          assert.equal(bundle?.fromCache, false);
          assert.equal(bundle?.exports.result(), `build-1 ${process.env.CODE_CACHE_TEST_VALUE ?? ""} 49 entry.cjs`);
        }),
        { numRuns: 60 },
      );
    } finally {
      if (previous === undefined) delete process.env.NODE_COMPILE_CACHE;
      else process.env.NODE_COMPILE_CACHE = previous;
    }
  });

  it("neither reads nor writes through a planted symbolic link, nor in a folder others can write to", () => {
    const dir = join(root, "links");
    const file = writeBundle(dir, "build-1");
    // The cache folder itself a link to someone else's folder: unused.
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere, { mode: 0o700 });
    const linked = join(dir, "linked");
    mkdirSync(linked);
    symlinkSync(elsewhere, join(linked, "switchboard-v8"));
    assert.equal(start(file, linked).fromCache, false);
    assert.equal(start(file, linked).fromCache, false);
    assert.deepEqual(readdirSync(elsewhere), []);

    // A folder others may write to: unused.
    const open = join(dir, "open");
    mkdirSync(join(open, "switchboard-v8"), { recursive: true });
    chmodSync(join(open, "switchboard-v8"), 0o777);
    start(file, open);
    assert.equal(start(file, open).fromCache, false);
    assert.deepEqual(readdirSync(join(open, "switchboard-v8")), []);

    // An entry that is a link (to a good entry elsewhere): not followed, replaced by a file of its own.
    const good = join(dir, "good");
    start(file, good);
    const [goodEntry] = entries(good);
    const planted = join(dir, "planted");
    mkdirSync(join(planted, "switchboard-v8"), { recursive: true, mode: 0o700 });
    const plantedEntry = join(planted, "switchboard-v8", goodEntry!.split("/").pop()!);
    symlinkSync(goodEntry!, plantedEntry);
    assert.equal(start(file, planted).fromCache, false);
    assert.equal(lstatSync(plantedEntry).isSymbolicLink(), false, "the link was replaced, not written through");
    assert.equal(start(file, planted).fromCache, true);
  });

  it("is off with NODE_DISABLE_COMPILE_CACHE", () => {
    const dir = join(root, "disabled");
    const file = writeBundle(dir, "build-1");
    const cache = join(dir, "cache");
    start(file, cache, { NODE_DISABLE_COMPILE_CACHE: "1" });
    assert.deepEqual(entries(cache), []);
    assert.equal(start(file, cache, { NODE_DISABLE_COMPILE_CACHE: "1" }).fromCache, false);
  });
});
