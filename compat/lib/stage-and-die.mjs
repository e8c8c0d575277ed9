// A process of its own that dies in the middle of a transaction, for the lost-attempt test in
// test/transactions.test.mjs:
//   node stage-and-die.mjs CONNSTR REPLACE_KEY INSERT_KEY
// It stages a replace of REPLACE_KEY ({ v: 2 }) and an insert of INSERT_KEY ({ v: 3 }), prints
// "staged", and kills itself with SIGKILL before the transaction can commit or roll back: its
// attempt stays PENDING in its ATR, and the staged content in the documents' txn XATTRs. It
// connects as doomed-client.mjs says: another client's cleanup must finish the job.
import { connectDoomed } from './doomed-client.mjs';

const [connStr, replaceKey, insertKey] = process.argv.slice(2);
const { cluster, coll } = await connectDoomed(connStr);
await cluster.transactions().run(async (ctx) => {
  await ctx.replace(await ctx.get(coll, replaceKey), { v: 2 });
  await ctx.insert(coll, insertKey, { v: 3 });
  process.stdout.write('staged\n', () => process.kill(process.pid, 'SIGKILL'));
  await new Promise(() => {}); // the kill comes first
});
