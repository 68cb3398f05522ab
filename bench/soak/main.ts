// `npm run bench soak -- --minutes N`: see soak.ts. The same entry also runs the baseline process the soak starts
// (`--baseline-process`), loading nothing but what the baseline needs, so that its memory is an idle Node's.
if (process.argv.includes("--baseline-process")) await import("./baseline-process.ts");
else await import("./soak.ts");
