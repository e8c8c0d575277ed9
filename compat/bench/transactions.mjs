// Usage: node compat/bench/transactions.mjs --port PORT [--seconds 10] [--in-flight 16]
// [--accounts 1000]
// The official Couchbase Node.js SDK's transactions against a ternd whose bucket `default`
// user `bench` may use: each transaction reads two accounts and replaces both (a transfer of 1
// between two of ACCOUNTS accounts, picked at random). Runs SECONDS with one transaction at a
// time, then SECONDS with IN_FLIGHT at once, and prints for each the transactions per second
// and the latency's p50 and p99 (ms). Checks at the end that the balances still add up, and
// counts the transfers run again after a conflict.
import { parseArgs } from 'node:util';
import couchbase from 'couchbase';

const { values: options } = parseArgs({
  options: {
    port: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    'in-flight': { type: 'string', default: '16' },
    accounts: { type: 'string', default: '1000' },
  },
});
const seconds = Number(options.seconds);
const accounts = Number(options.accounts);
const START = 1000;

const cluster = await couchbase.connect(`couchbase://127.0.0.1:${options.port}`, {
  username: 'bench', password: 'password',
  timeouts: { kvTimeout: 10000, kvDurableTimeout: 10000, connectTimeout: 20000, bootstrapTimeout: 30000 },
});
const coll = cluster.bucket('default').defaultCollection();
const key = (i) => `account-${i}`;
for (let i = 0; i < accounts; i += 100) {
  await Promise.all(Array.from({ length: Math.min(100, accounts - i) }, (_, j) => coll.upsert(key(i + j), { balance: START })));
}

// The Node SDK retries an attempt whose commit fails, but an operation that fails inside the
// lambda (a staged replace whose CAS another transaction changed since the get) ends run() with
// TransactionFailedError after a rollback: the application runs the transfer again, as it would.
let conflicts = 0;
async function transfer() {
  const from = Math.floor(Math.random() * accounts);
  const to = (from + 1 + Math.floor(Math.random() * (accounts - 1))) % accounts;
  for (;;) {
    try {
      await cluster.transactions().run(async (ctx) => {
        const a = await ctx.get(coll, key(from));
        const b = await ctx.get(coll, key(to));
        await ctx.replace(a, { balance: a.content.balance - 1 });
        await ctx.replace(b, { balance: b.content.balance + 1 });
      });
      return;
    } catch (e) {
      if (!(e instanceof couchbase.TransactionFailedError)) throw e;
      conflicts++;
    }
  }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function phase(inFlight) {
  const latencies = [];
  const end = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      await transfer();
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((x, y) => x - y);
  console.log(`| ${inFlight} | ${latencies.length} | ${(latencies.length / elapsed).toFixed(0)} | ` +
    `${percentile(latencies, 50).toFixed(2)} | ${percentile(latencies, 99).toFixed(2)} |`);
}

console.log('| in flight | transactions | transactions/s | p50 ms | p99 ms |');
console.log('|---:|---:|---:|---:|---:|');
await phase(1);
await phase(Number(options['in-flight']));

let total = 0;
for (let i = 0; i < accounts; i += 100) {
  const reads = await Promise.all(Array.from({ length: Math.min(100, accounts - i) }, (_, j) => coll.get(key(i + j))));
  total += reads.reduce((sum, r) => sum + r.content.balance, 0);
}
if (total !== accounts * START) throw new Error(`the balances add up to ${total}, not ${accounts * START}`);
console.log(`balances: ${accounts} accounts still hold ${total} in all; ${conflicts} transfers ran again after ` +
  'a TransactionFailedError (a conflict; latencies include the rerun)');
await cluster.close();
