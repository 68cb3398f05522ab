// The Markdown table both parts of bench/startup print: medians, minimums, and the ratio to the first row's median.

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The first row is the floor the others are compared with. */
export function printTable(rows: { name: string; times: number[] }[]): void {
  const floor = median(rows[0]!.times);
  console.log("| command | median ms | min ms | ratio to bare node |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const { name, times } of rows) {
    const ratio = median(times) / floor;
    console.log(`| ${name} | ${median(times).toFixed(1)} | ${Math.min(...times).toFixed(1)} | ${ratio.toFixed(2)}x |`);
  }
}
