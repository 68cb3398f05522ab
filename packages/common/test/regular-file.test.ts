import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { readRegularFile, replaceRegularFile, UnsafeFileError } from "../src/regular-file.ts";

const dir = mkdtempSync(join(tmpdir(), "regular-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("an absent file reads as undefined; a replaced one reads back, mode 0600, with no temporary file left", () => {
  const path = join(dir, "state.json");
  assert.equal(readRegularFile(path), undefined);
  replaceRegularFile(path, "first");
  replaceRegularFile(path, "second");
  assert.equal(readRegularFile(path), "second");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ["state.json"]);
});

test("a symbolic link, a directory or a socket at the path is refused, and a link's target is left untouched", async () => {
  const target = join(dir, "target");
  writeFileSync(target, "precious");
  const link = join(dir, "link.json");
  symlinkSync(target, link);
  const socket = join(dir, "socket.json");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const folder = join(dir, "folder.json");
  mkdirSync(folder);
  for (const [path, kind] of [
    [link, "a symbolic link"],
    [socket, "not a regular file"],
    [folder, "a directory"],
  ] as const) {
    for (const act of [() => readRegularFile(path), () => replaceRegularFile(path, "planted")]) {
      assert.throws(act, (error: Error) => {
        assert.ok(error instanceof UnsafeFileError);
        assert.equal(error.message.startsWith(`${path} is ${kind}:`), true, error.message);
        return true;
      });
    }
  }
  server.close();
  assert.equal(readFileSync(target, "utf8"), "precious");
});
