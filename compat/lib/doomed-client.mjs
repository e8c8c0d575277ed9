// The connection of a client that a transaction test kills on purpose (stage-and-die.mjs,
// commit-and-die.mjs): its transactions expire after 2 s and it runs no cleanup of its own, so
// that another client's lost-attempt cleanup is what must finish its job.
import couchbase from 'couchbase';
import { USER, PASSWORD, BUCKET } from './ternd.mjs';

export async function connectDoomed(connStr) {
  const cluster = await couchbase.connect(connStr, {
    username: USER,
    password: PASSWORD,
    transactions: {
      timeout: 2000,
      cleanupConfig: { disableLostAttemptCleanup: true, disableClientAttemptCleanup: true },
    },
  });
  return { cluster, coll: cluster.bucket(BUCKET).defaultCollection() };
}
