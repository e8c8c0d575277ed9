// A process of its own that dies in the middle of a transaction, for the lost-attempt test in
// test/transactions.test.mjs:
//   node stage-and-die.mjs CONNSTR REPLACE_KEY INSERT_KEY
// It stages a replace of REPLACE_KEY ({ v: 2 }) and an insert of INSERT_KEY ({ v: 3 }), prints
// "staged", and kills itself with SIGKILL before the transaction can commit or roll back: its
// attempt stays PENDING in its ATR, and the staged content in the documents' txn XATTRs. Its
// transactions expire after 2 s and it runs no cleanup of its own, so that another client's
// lost-attempt cleanup is what must finish the job.
import couchbase from 'couchbase';
import { USER, PASSWORD, BUCKET } from './ternd.mjs';

const [connStr, replaceKey, insertKey] = process.argv.slice(2);
const cluster = await couchbase.connect(connStr, {
  username: USER,
  password: PASSWORD,
  transactions: {
    timeout: 2000,
    cleanupConfig: { disableLostAttemptCleanup: true, disableClientAttemptCleanup: true },
  },
});
const coll = cluster.bucket(BUCKET).defaultCollection();
await cluster.transactions().run(async (ctx) => {
  await ctx.replace(await ctx.get(coll, replaceKey), { v: 2 });
  await ctx.insert(coll, insertKey, { v: 3 });
  process.stdout.write('staged\n', () => process.kill(process.pid, 'SIGKILL'));
  await new Promise(() => {}); // the kill comes first
});
