// The Debian packages the tests need: the one list that `npm test` and `.ci/run` install from
// (scripts/ensure-system-packages.mjs). Add a package here when a test starts needing one (a real server, a browser).
// `command` is the program a test runs from the package: on a machine without dpkg it is looked for on PATH instead.
// `npm start` needs none of them.
export const SYSTEM_PACKAGES = [
  { name: "ngircd", command: "ngircd", why: "IRC server for the bridge's IRC tests (testkit startNgircd)" },
  { name: "prosody", command: "prosody", why: "XMPP server for the bridge's XMPP tests (testkit startProsody)" },
  { name: "openssl", command: "openssl", why: "self-signed certificates for the XMPP STARTTLS tests" },
  { name: "prometheus", command: "promtool", why: "promtool, which checks the gateway's /metrics output" },
  { name: "chromium", command: "chromium", why: "the browser the gateway dashboard test drives (playwright-core)" },
  { name: "mmdebstrap", command: "mmdebstrap", why: "builds the chroot holding Synapse for the Matrix test" },
  { name: "redis-server", command: "redis-server", why: "real Redis for the gateway's shared state store tests" },
  { name: "mumble-server", command: "murmurd", why: "murmurd, the Mumble server of the bridge's Mumble tests" },
];
