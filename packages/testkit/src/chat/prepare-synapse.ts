// `node --import tsx prepare-synapse.ts`: builds (or finds) the Synapse chroot before the tests run, so that the
// build — a minute or two on a fresh machine — never counts against a test's timeout. Prints one line: "ready <root>"
// or "skip <reason>"; the test runner hands the reason to the tests (SWITCHBOARD_SYNAPSE_SKIP).
import { synapseRoot } from "./synapse-root.ts";

const started = performance.now();
const prepared = await synapseRoot();
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if ("root" in prepared) console.log(`ready ${prepared.root} (${seconds} s)`);
else console.log(`skip ${prepared.skip}`);
