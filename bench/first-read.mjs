// Child process of the table benchmarks: in a fresh process, times the first plan + read of a
// table (module compile, JIT warm-up included; importing the library is reported apart) and
// the median of later plan + reads in the same process. Opening the table is inside the first
// read's time (it starts loading what the read needs) and is also reported alone. Prints one JSON line.
// usage: node bench/first-read.mjs <warehouse> <table> [entry: node (dist/node/index.js, what the
// package resolves to in Node: default) | unbundled (dist/index.js)]
const [warehouse, ident, entry = "node"] = process.argv.slice(2);
const t0 = performance.now();
const lib = await import(entry === "unbundled" ? "../dist/index.js" : "../dist/node/index.js");
const importMs = performance.now() - t0;
let at = performance.now();
const table = await (await lib.Catalog.open(warehouse)).getTable(ident);
const openMs = performance.now() - at;
const readAll = async () => {
  const plan = await table.newScan().plan();
  return (await table.newRead().toArrow(plan.splits)).numRows;
};
const rows = await readAll();
const firstMs = performance.now() - at; // open + first plan + read
const warm = [];
for (let i = 0; i < 7; i++) {
  at = performance.now();
  await readAll();
  warm.push(performance.now() - at);
}
warm.sort((a, b) => a - b);
console.log(JSON.stringify({ importMs, openMs, firstMs, warmMs: warm[3], rows }));
