// A process of its own whose transaction commits while the test that spawned it watches, for
// the mid-commit test in test/transactions.test.mjs:
//   node commit-and-die.mjs CONNSTR KEY_PREFIX COUNT [TIMEOUT_MS]
// It replaces KEY_PREFIX0 .. KEY_PREFIX{COUNT-1} with { v: 2 } in one transaction, prints
// "staged" once the first is staged (its txn XATTR names the ATR entry, PENDING until the
// lambda ends; then the commit turns it COMMITTED and unstages each document), and waits; the
// test kills it with SIGKILL once it sees the entry COMMITTED, so that documents are left
// staged. It connects as doomed-client.mjs says: another client's cleanup must finish the job.
// TIMEOUT_MS, if given, replaces the 2 s timeout of the transaction (many documents take longer
// to stage on a busy machine).
import { connectDoomed } from './doomed-client.mjs';

const [connStr, prefix, count, timeoutMs] = process.argv.slice(2);
const { cluster, coll } = await connectDoomed(connStr);
await cluster.transactions().run(async (ctx) => {
  for (let i = 0; i < Number(count); i++) {
    await ctx.replace(await ctx.get(coll, `${prefix}${i}`), { v: 2 });
    if (i === 0) process.stdout.write('staged\n'); // the ATR entry exists now, PENDING
  }
}, timeoutMs ? { timeout: Number(timeoutMs) } : undefined);
process.stdout.write('committed\n');
await new Promise(() => {}); // the kill comes, or the test gave up on it
