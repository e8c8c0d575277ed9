// Usage: node compat/bench/scan.mjs --port PORT --keys N [--rounds R] [--in-flight 256]
// [--concurrency 16]
// The official Couchbase Node.js SDK against a ternd that holds N documents in bucket
// `default` (loaded beforehand): in each round, in the same process, every key fetched with
// pipelined gets (IN_FLIGHT at once), a full range scan (documents) and an ids-only scan, each
// timed. Checks that each reads all N. Prints a row per round and the medians, and the
// scan / gets ratio of documents per second (issue 26's goal: the scan at least 3x faster).
// The keys come from the first ids-only scan, which is timed as round 0's and not counted.
import { parseArgs } from 'node:util';
import couchbase from 'couchbase';

const { values: options } = parseArgs({
  options: {
    port: { type: 'string' },
    keys: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    'in-flight': { type: 'string', default: '256' },
    concurrency: { type: 'string', default: '16' },
  },
});
const expected = Number(options.keys);
const inFlight = Number(options['in-flight']);
const concurrency = Number(options.concurrency);

const cluster = await couchbase.connect(`couchbase://127.0.0.1:${options.port}`, {
  username: 'bench', password: 'password',
  timeouts: { kvTimeout: 30000, kvScanTimeout: 600000, connectTimeout: 20000, bootstrapTimeout: 30000 },
});
const coll = cluster.bucket('default').defaultCollection();
const { RangeScan } = couchbase;

async function timed(what, fn) {
  const start = process.hrtime.bigint();
  const count = await fn();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (count !== expected) throw new Error(`${what} read ${count} documents, not ${expected}`);
  return { seconds, rate: count / seconds };
}

const scan = (idsOnly) => async () =>
  (await coll.scan(new RangeScan(), { idsOnly, concurrency })).length;

const keys = (await coll.scan(new RangeScan(), { idsOnly: true, concurrency })).map((r) => r.id);
if (keys.length !== expected) throw new Error(`found ${keys.length} keys, not ${expected}`);

async function gets() {
  let next = 0;
  let read = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < keys.length) {
      await coll.get(keys[next++]);
      read++;
    }
  }));
  return read;
}

const rows = [];
console.log(`| round | gets: s | gets: docs/s | scan: s | scan: docs/s | ids-only scan: s | ids-only: keys/s | scan / gets |`);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (let round = 1; round <= Number(options.rounds); round++) {
  const row = { gets: await timed('gets', gets), scan: await timed('scan', scan(false)),
    ids: await timed('ids-only scan', scan(true)) };
  rows.push(row);
  const f = (x) => Math.round(x).toLocaleString('en-US');
  console.log(`| ${round} | ${row.gets.seconds.toFixed(2)} | ${f(row.gets.rate)} | ${row.scan.seconds.toFixed(2)} | ` +
    `${f(row.scan.rate)} | ${row.ids.seconds.toFixed(2)} | ${f(row.ids.rate)} | ${(row.scan.rate / row.gets.rate).toFixed(2)} |`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const m = (pick) => median(rows.map(pick));
console.log(`medians: gets ${Math.round(m((r) => r.gets.rate))} docs/s, scan ${Math.round(m((r) => r.scan.rate))} docs/s, ` +
  `ids-only ${Math.round(m((r) => r.ids.rate))} keys/s; scan / gets ${median(rows.map((r) => r.scan.rate / r.gets.rate)).toFixed(2)}` +
  ` (median of the rounds' ratios)`);
await cluster.close();
