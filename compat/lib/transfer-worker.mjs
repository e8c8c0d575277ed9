// A process of its own that moves money between accounts with the official SDK's transactions,
// for the concurrency test in test/transactions.test.mjs:
//   node transfer-worker.mjs CONNSTR SECONDS ACCOUNTS SEED [DURABILITY]
// For SECONDS it runs transactions that each read two of the ACCOUNTS documents `acct-<i>`
// ({ balance }) and move an amount from one to the other. It prints one JSON line:
// { committed, failed, deltas, causes, ambiguous }: deltas[i] is the net change its committed
// transfers made to account i, causes counts the failures by error class and cause, and
// ambiguous lists the [from, to, amount] of transfers whose commit ended in doubt.
// DURABILITY (a couchbase.DurabilityLevel name, e.g. PersistToMajority) sets the transactions'
// durability; by default the SDK's (Majority).
import couchbase from 'couchbase';
import { USER, PASSWORD, BUCKET } from './ternd.mjs';

const [connStr, seconds, accountCount, seed, durability] = process.argv.slice(2);
const accounts = Number(accountCount);
const cluster = await couchbase.connect(connStr, {
  username: USER, password: PASSWORD, timeouts: { kvTimeout: 10000, connectTimeout: 10000, bootstrapTimeout: 20000 },
});
const coll = cluster.bucket(BUCKET).defaultCollection();

// A small deterministic generator: each worker's sequence of transfers follows from its seed.
let state = Number(seed);
const pick = (n) => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state % n;
};

const deltas = new Array(accounts).fill(0);
const causes = {};
const ambiguous = [];
const options = { timeout: 10000, ...(durability ? { durabilityLevel: couchbase.DurabilityLevel[durability] } : {}) };
let committed = 0;
let failed = 0;
const end = Date.now() + Number(seconds) * 1000;
while (Date.now() < end) {
  const from = pick(accounts);
  const to = (from + 1 + pick(accounts - 1)) % accounts;
  const amount = 1 + pick(10);
  try {
    await cluster.transactions().run(async (ctx) => {
      const a = await ctx.get(coll, `acct-${from}`);
      const b = await ctx.get(coll, `acct-${to}`);
      await ctx.replace(a, { balance: a.content.balance - amount });
      await ctx.replace(b, { balance: b.content.balance + amount });
    }, options);
    committed++;
    deltas[from] -= amount;
    deltas[to] += amount;
  } catch (e) {
    failed++;
    if (e instanceof couchbase.TransactionCommitAmbiguousError) ambiguous.push([from, to, amount]);
    const key = `${e.constructor.name}: ${e.cause?.message ?? e.message}`;
    causes[key] = (causes[key] ?? 0) + 1;
  }
}
console.log(JSON.stringify({ committed, failed, deltas, causes, ambiguous }));
await cluster.close();
