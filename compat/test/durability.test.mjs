// The official Couchbase Node.js SDK's durable writes against a real ternd from
// server/config/dev.toml (a couchbase bucket, so persistent): upserts at PersistToMajority
// and MajorityAndPersistOnMaster succeed (with no replicas they complete once the write is on
// disk), and after a clean restart (SIGTERM) on the same data directory they, and a plain
// upsert, read back with the same content and CAS.
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { startTernd, tempDataDir, describeError, USER, PASSWORD, BUCKET } from '../lib/ternd.mjs';

const { DurabilityLevel, ServiceType } = couchbase;

// Generous for a busy two-core machine.
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 30000;
const RUN = `${process.pid}-${Date.now().toString(36)}`;

// One data directory for both starts of ternd; removed at the end.
const dataDir = tempDataDir();
let ternd;
let cluster;

async function connect() {
  ternd = await startTernd({ dataDir: dataDir.path });
  cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  const bucket = cluster.bucket(BUCKET);
  // Ready includes warm: until warmup is done, ternd answers Etmpfail, which the SDK retries.
  await bucket.waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
  return bucket.defaultCollection();
}

async function disconnect() {
  await cluster?.close();
  cluster = undefined;
  const code = await ternd?.stop();
  const log = ternd?.log();
  ternd = undefined;
  assert.equal(code, 0, `ternd must exit cleanly on SIGTERM; its log:\n${log}`);
}

before(async () => { await connect(); });

after(async () => {
  try {
    await cluster?.close();
    await ternd?.stop();
  } finally {
    dataDir.remove();
  }
});

const writes = [
  { name: 'PersistToMajority', key: `durable-ptm-${RUN}`, options: { durabilityLevel: DurabilityLevel.PersistToMajority } },
  { name: 'MajorityAndPersistOnMaster', key: `durable-mapom-${RUN}`, options: { durabilityLevel: DurabilityLevel.MajorityAndPersistOnMaster } },
  { name: 'no durability', key: `plain-${RUN}`, options: {} },
];
const written = new Map();  // key -> { content, cas }

for (const w of writes) {
  it(`upsert with ${w.name} succeeds`, async () => {
    const collection = cluster.bucket(BUCKET).defaultCollection();
    const content = { level: w.name, run: RUN, n: written.size };
    let result;
    try {
      result = await collection.upsert(w.key, content, w.options);
    } catch (err) {
      assert.fail(`upsert ${w.name}: ${describeError(err)}`);
    }
    assert.ok(result.cas, 'a CAS');
    assert.ok(result.token, 'a mutation token');
    const read = await collection.get(w.key);
    assert.deepEqual(read.content, content);
    assert.equal(read.cas.toString(), result.cas.toString());
    written.set(w.key, { content, cas: result.cas.toString() });
  });
}

it('after a clean restart on the same data directory, every upsert reads back with its content and CAS', async () => {
  assert.equal(written.size, writes.length, 'the upserts above ran');
  await disconnect();
  const collection = await connect();
  for (const [key, { content, cas }] of written) {
    let read;
    try {
      read = await collection.get(key);
    } catch (err) {
      assert.fail(`get ${key} after the restart: ${describeError(err)}`);
    }
    assert.deepEqual(read.content, content, key);
    assert.equal(read.cas.toString(), cas, `${key}: the CAS survives`);
  }
});
