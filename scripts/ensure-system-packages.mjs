// Runs before any test (`npm test`, `npm run bench`, `.ci/run`): makes sure the Debian packages of
// system-packages.mjs are installed, so that no test fails on a server that is not there. As root with apt-get it
// installs the missing ones (one `apt-get update`, then `apt-get install` of those only); otherwise it prints one line
// naming them and the command that installs them, and the caller stops before running anything.
// The machine is a parameter (what is installed, root or not, apt-get or not, how to install) so that the decision is
// tested without touching the machine: ensure-system-packages.test.mjs. Node built-ins only: it runs before
// `npm install`.
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { SYSTEM_PACKAGES } from "./system-packages.mjs";

const APT_INSTALL_ARGS = ["install", "-y", "--no-install-recommends"];
const APT_INSTALL = `apt-get ${APT_INSTALL_ARGS.join(" ")}`;

/**
 * Installs what is missing when it can; returns whether every package is there. When it returns false it has
 * reported one line saying what to install and how.
 */
export function ensureSystemPackages(packages = SYSTEM_PACKAGES, machine = thisMachine()) {
  const installed = machine.installed(packages);
  const missing = packages.filter((pkg) => !installed.has(pkg.name));
  if (missing.length === 0) return true;
  const names = missing.map((pkg) => pkg.name);
  if (!machine.hasApt) {
    const commands = missing.map((pkg) => pkg.command).join(", ");
    machine.report(
      `switchboard: npm test needs ${commands} (Debian packages ${names.join(", ")}) and this machine has no apt-get ` +
        "to install them: install them with its package manager, then run npm test again",
    );
    return false;
  }
  if (!machine.isRoot) {
    machine.report(
      `switchboard: npm test needs the Debian packages ${names.join(", ")}, which are not installed; install them, ` +
        `then run npm test again: sudo apt-get update && sudo ${APT_INSTALL} ${names.join(" ")}`,
    );
    return false;
  }
  machine.report(`switchboard: installing the Debian packages the tests need: ${names.join(" ")}`);
  if (machine.install(names)) return true;
  machine.report(
    `switchboard: apt-get could not install ${names.join(", ")} (its output is above); install them, then run ` +
      `npm test again: apt-get update && ${APT_INSTALL} ${names.join(" ")}`,
  );
  return false;
}

/** The real machine, as ensureSystemPackages sees it. */
export function thisMachine(env = process.env) {
  const dpkgQuery = findProgram("dpkg-query", env);
  const aptGet = findProgram("apt-get", env);
  return {
    hasApt: Boolean(dpkgQuery && aptGet),
    isRoot: process.getuid?.() === 0,
    installed: (packages) => (dpkgQuery ? installedByDpkg(dpkgQuery, packages) : installedByProgram(packages, env)),
    install: (names) => aptInstall(aptGet, names),
    report: (line) => console.error(line),
  };
}

/** Where a program is: PATH first, then the sbin and bin folders a non-root PATH often lacks (as the testkit does). */
function findProgram(name, env) {
  const dirs = [...(env.PATH ?? "").split(delimiter), "/usr/local/sbin", "/usr/sbin", "/usr/bin"].filter(Boolean);
  return dirs.map((dir) => join(dir, name)).find(isFile);
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function installedByDpkg(dpkgQuery, packages) {
  if (packages.length === 0) return new Set(); // with no names dpkg-query lists every package
  // One query for all; it exits 1 when it knows a package not at all, and still prints the ones it knows.
  const names = packages.map((pkg) => pkg.name);
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format fields, not a JavaScript template
  const format = "-f=${Package} ${Status}\\n";
  const query = spawnSync(dpkgQuery, ["-W", format, ...names], { encoding: "utf8" });
  const lines = (query.stdout ?? "").split("\n").filter((line) => line.endsWith(" install ok installed"));
  return new Set(lines.map((line) => line.split(" ")[0]));
}

// Without dpkg (not Debian) the programs the tests run are what counts.
function installedByProgram(packages, env) {
  return new Set(packages.filter((pkg) => findProgram(pkg.command, env)).map((pkg) => pkg.name));
}

function aptInstall(aptGet, names) {
  const options = { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } };
  const update = spawnSync(aptGet, ["update", "-qq"], options);
  if (update.status !== 0) return false;
  return spawnSync(aptGet, [...APT_INSTALL_ARGS, "-qq", ...names], options).status === 0;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureSystemPackages() ? 0 : 1);
