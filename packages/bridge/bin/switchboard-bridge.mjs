#!/usr/bin/env node
// The bin under its earlier name, for scripts that still run it: the bin is switchboard-bridge.cjs, which starts
// quicker (no ES module loader); this runs it.
import "./switchboard-bridge.cjs";
