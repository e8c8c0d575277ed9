// A process of its own whose transaction commits while the test that spawned it watches, for
// the mid-commit tests in test/transactions.test.mjs and in Tern.Client's CleanupInteropTests:
//   node commit-and-die.mjs CONNSTR KEY_PREFIX COUNT TIMEOUT_MS
// It replaces KEY_PREFIX0 .. KEY_PREFIX{COUNT-1} with { v: 2 } in one transaction, prints
// "staged" once every one is staged (each one's txn XATTR names the ATR entry, still PENDING),
// and then waits for a line on stdin before it lets the lambda end and the commit begin: the
// test locks a staged document in between, so that the commit (ATR entry COMMITTED, then each
// document unstaged) cannot finish. The test kills it with SIGKILL. Whatever the commit ends
// in, the process stays up until then. It connects as doomed-client.mjs says: another client's
// cleanup must finish the job. TIMEOUT_MS replaces the 2 s timeout of the transaction: the wait
// for the test must not outlast it.
import { once } from 'node:events';
import { connectDoomed } from './doomed-client.mjs';

const [connStr, prefix, count, timeoutMs] = process.argv.slice(2);
const { cluster, coll } = await connectDoomed(connStr);
try {
  await cluster.transactions().run(async (ctx) => {
    for (let i = 0; i < Number(count); i++) {
      await ctx.replace(await ctx.get(coll, `${prefix}${i}`), { v: 2 });
    }
    process.stdout.write('staged\n');
    await once(process.stdin, 'data');
  }, { timeout: Number(timeoutMs) });
  process.stdout.write('committed\n');
} catch (error) {
  process.stdout.write(`the transaction failed: ${error}\n`);
}
await new Promise(() => {}); // the kill comes
