// The durability levels through the official Couchbase Node.js SDK, against a real ternd whose
// disk the test holds: ternd runs under hold_fsync (server/test/tools/hold_fsync.cc), and while
// the hold file exists none of its fsyncs returns, so nothing it writes is persisted. Then
// PersistToMajority and MajorityAndPersistOnMaster must not answer Success: at their timeout
// they answer SyncWriteAmbiguous (DurabilityAmbiguousError), and with a long timeout they stay
// pending until the hold is lifted. Majority (no replicas: applied in memory) and a write with
// no durability answer without the disk. A server that ignored the durability frame would
// answer every one of them at once.
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import {
  startTernd, stopCleanly, tempHoldFile, rejection, describeError, USER, PASSWORD, BUCKET,
} from '../lib/ternd.mjs';

const { DurabilityLevel, DurabilityAmbiguousError, ServiceType } = couchbase;

// Generous for a busy two-core machine.
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 30000;
// The SDK sends 90% of it as the durability timeout, and gives up itself at 100%: the 10%
// between is how late ternd's SyncWriteAmbiguous may be on a busy machine, 500 ms here.
const SHORT_DURABLE_TIMEOUT_MS = 5000;
// Long: a write with this timeout must still be pending when the writes after it are answered.
const LONG_DURABLE_TIMEOUT_MS = 60000;
const RUN = `${process.pid}-${Date.now().toString(36)}`;
const PERSIST_LEVELS = [
  { name: 'PersistToMajority', durabilityLevel: DurabilityLevel.PersistToMajority },
  { name: 'MajorityAndPersistOnMaster', durabilityLevel: DurabilityLevel.MajorityAndPersistOnMaster },
];

const holdFile = tempHoldFile();

let ternd;
let cluster;
let collection;

before(async () => {
  ternd = await startTernd({ holdFile: holdFile.path });
  cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  const bucket = cluster.bucket(BUCKET);
  await bucket.waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
  collection = bucket.defaultCollection();
  // Held from here on, once ternd is warm (warmup syncs too).
  holdFile.hold();
});

after(async () => {
  // A held ternd cannot finish a clean stop: it flushes first.
  holdFile.release();
  try {
    await cluster?.close();
    await stopCleanly(ternd);
  } finally {
    holdFile.remove();
  }
});

it('with the disk held, PersistToMajority and MajorityAndPersistOnMaster answer SyncWriteAmbiguous at their timeout', async () => {
  const errors = await Promise.all(PERSIST_LEVELS.map(({ name, durabilityLevel }) =>
    rejection(collection.upsert(`ambiguous-${name}-${RUN}`, { level: name },
      { durabilityLevel, timeout: SHORT_DURABLE_TIMEOUT_MS }), `${name} upsert with the disk held`)));
  errors.forEach((err, i) =>
    assert.ok(err instanceof DurabilityAmbiguousError, `${PERSIST_LEVELS[i].name}: ${describeError(err)}`));
});

it('with the disk held, Majority and a write with no durability succeed', async () => {
  const majority = await collection.upsert(`majority-${RUN}`, { level: 'Majority' },
    { durabilityLevel: DurabilityLevel.Majority, timeout: SHORT_DURABLE_TIMEOUT_MS });
  const plain = await collection.upsert(`plain-${RUN}`, { level: 'none' });
  assert.equal((await collection.get(`majority-${RUN}`)).cas.toString(), majority.cas.toString());
  assert.equal((await collection.get(`plain-${RUN}`)).cas.toString(), plain.cas.toString());
});

it('a persist-level upsert stays pending while later writes and reads are answered, and succeeds once the disk is released', async () => {
  const pending = PERSIST_LEVELS.map(({ name, durabilityLevel }) => {
    const key = `pending-${name}-${RUN}`;
    const content = { level: name, run: RUN };
    const op = { name, key, content, settled: false };
    op.result = collection.upsert(key, content, { durabilityLevel, timeout: LONG_DURABLE_TIMEOUT_MS })
      .finally(() => { op.settled = true; });
    return op;
  });
  // Sent after the persist-level upserts on the same connection, and answered before them.
  const majorityKey = `later-majority-${RUN}`;
  await collection.upsert(majorityKey, { later: 'Majority' }, { durabilityLevel: DurabilityLevel.Majority });
  await collection.upsert(`later-plain-${RUN}`, { later: 'none' });
  assert.deepEqual((await collection.get(majorityKey)).content, { later: 'Majority' });
  for (const op of pending) assert.equal(op.settled, false, `${op.name} answered while the disk was held`);

  holdFile.release();
  for (const op of pending) {
    let result;
    try {
      result = await op.result;
    } catch (err) {
      assert.fail(`${op.name} once the disk is released: ${describeError(err)}`);
    }
    const read = await collection.get(op.key);
    assert.deepEqual(read.content, op.content, op.name);
    assert.equal(read.cas.toString(), result.cas.toString(), op.name);
  }
});
