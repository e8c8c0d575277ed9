// Mutation tokens across restarts of one ternd on the same data directory, with the official
// Couchbase Node.js SDK: a range scan consistent with a token taken before a clean restart
// (SIGTERM) runs after it, because the vbucket keeps its uuid (its failover log is stored
// beside the documents). After kill -9 the vbucket starts a new history: new writes carry a
// new uuid, and the documents written before are all there.
import { it, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { startTernd, stopCleanly, tempDataDir, USER, PASSWORD, BUCKET } from '../lib/ternd.mjs';

const { DurabilityLevel, MutationState, PrefixScan, ServiceType } = couchbase;

// Generous for a busy two-core machine; a scan opens one stream per vbucket (1024).
const TIMEOUTS = { kvTimeout: 10000, kvScanTimeout: 60000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 30000;

const dataDir = tempDataDir();
let ternd;
let cluster;

// Starts ternd on the test's data directory and returns its default collection, once warm.
async function start() {
  ternd = await startTernd({ dataDir: dataDir.path });
  cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  const bucket = cluster.bucket(BUCKET);
  await bucket.waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
  return bucket.defaultCollection();
}

async function closeCluster() {
  await cluster?.close();
  cluster = undefined;
}

after(async () => {
  try {
    await closeCluster();
    if (ternd) await stopCleanly(ternd);
  } finally {
    dataDir.remove();
  }
});

const uuidOf = (token) => token.toJSON().partition_uuid;

it('a token from before a clean restart still holds; after kill -9 a new history begins', async () => {
  let collection = await start();
  const written = await collection.upsert('token-doc', { before: 'restart' });
  const token = written.token;
  assert.ok(token, 'the upsert carries a mutation token');
  await closeCluster();
  await stopCleanly(ternd);
  ternd = undefined;

  // Clean restart: the same vbucket uuid, so a scan consistent with the old token runs.
  collection = await start();
  const results = await collection.scan(new PrefixScan('token-'), { consistentWith: new MutationState(token) });
  assert.deepEqual(results.map((r) => [r.id, r.content]), [['token-doc', { before: 'restart' }]]);
  // Persisted before it is acknowledged: the kill below cannot lose it.
  const again = await collection.upsert('token-doc', { before: 'kill' },
    { durabilityLevel: DurabilityLevel.PersistToMajority });
  assert.equal(uuidOf(again.token), uuidOf(token), 'a clean restart keeps the vbucket uuid');
  await closeCluster();
  await ternd.kill();
  ternd = undefined;

  // Unclean restart: a new history, whose writes carry a new uuid; the documents are there.
  collection = await start();
  assert.deepEqual((await collection.get('token-doc')).content, { before: 'kill' });
  const fresh = await collection.upsert('token-doc', { after: 'kill' });
  assert.notEqual(uuidOf(fresh.token), uuidOf(token), 'kill -9 starts a new vbucket history');
  assert.deepEqual((await collection.get('token-doc')).content, { after: 'kill' });
});
