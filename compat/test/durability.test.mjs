// The official Couchbase Node.js SDK's durable writes against a real ternd from
// server/config/dev.toml (a couchbase bucket, so persistent). Upserts at PersistToMajority and
// MajorityAndPersistOnMaster answer only once the write is on disk (no replicas), so they
// survive SIGKILL: after a kill and a restart on the same data directory, every acknowledged
// durable write reads back with its content and CAS. The kill comes while ternd's disk is held
// (it runs under hold_fsync: while the hold file exists, its fsyncs wait), with more durable
// upserts in flight and plain upserts, the control, acknowledged: ternd answers a plain upsert
// before its flusher has written it, so those may be lost, and the test prints how many were.
// A server that ignored the durability levels would acknowledge the durable upserts in flight
// as well, and lose them. Then a clean stop (SIGTERM, exit status 0) loses nothing, not even
// plain upserts.
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import {
  startTernd, stopCleanly, tempDataDir, tempHoldFile, describeError, pool, USER, PASSWORD, BUCKET,
} from '../lib/ternd.mjs';

const { DurabilityLevel, DocumentNotFoundError, ServiceType } = couchbase;

// Generous for a busy two-core machine.
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 30000;
const RUN = `${process.pid}-${Date.now().toString(36)}`;
const LEVELS = [
  { name: 'PersistToMajority', durabilityLevel: DurabilityLevel.PersistToMajority },
  { name: 'MajorityAndPersistOnMaster', durabilityLevel: DurabilityLevel.MajorityAndPersistOnMaster },
];
const DURABLE_AWAITED = 120;  // durable upserts awaited before the kill, the levels in turn
const DURABLE_AT_KILL = 40;   // more of them, in flight at the kill
const PLAIN_AT_KILL = 400;    // the control: plain upserts acknowledged just before the kill
const IN_FLIGHT = 8;

// One data directory for every start of ternd; removed at the end.
const dataDir = tempDataDir();
const holdFile = tempHoldFile();
let ternd;
let cluster;
let collection;

async function connect() {
  ternd = await startTernd({ dataDir: dataDir.path, holdFile: holdFile.path });
  cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  const bucket = cluster.bucket(BUCKET);
  // Ready includes warm: until warmup is done, ternd answers Etmpfail, which the SDK retries.
  await bucket.waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
  collection = bucket.defaultCollection();
}

async function closeCluster() {
  await cluster?.close();
  cluster = undefined;
}

before(async () => { await connect(); });

after(async () => {
  // A held ternd cannot finish a clean stop: it flushes first.
  holdFile.release();
  try {
    await closeCluster();
    await stopCleanly(ternd);
  } finally {
    dataDir.remove();
    holdFile.remove();
  }
});

// Acknowledged writes, key -> { content, cas }: what must (durable) or may (plain) read back.
const durable = new Map();
const plain = new Map();

/** Upserts key, and records it in `acked` once ternd has answered Success. */
async function upsertRecorded(acked, key, content, options) {
  const result = await collection.upsert(key, content, options);
  acked.set(key, { content, cas: result.cas.toString() });
}

function durableUpsert(i) {
  const { name, durabilityLevel } = LEVELS[i % LEVELS.length];
  return upsertRecorded(durable, `durable-${RUN}-${i}`, { level: name, run: RUN, i }, { durabilityLevel });
}

/** Reads every key of `acked` back: { missing: [keys], wrong: [descriptions] }. */
async function readBack(acked) {
  const missing = [];
  const wrong = [];
  await pool([...acked], IN_FLIGHT, async ([key, { content, cas }]) => {
    try {
      const read = await collection.get(key);
      if (JSON.stringify(read.content) !== JSON.stringify(content) || read.cas.toString() !== cas) {
        wrong.push(`${key}: read ${JSON.stringify(read.content)} cas ${read.cas}, wrote ${JSON.stringify(content)} cas ${cas}`);
      }
    } catch (err) {
      if (err instanceof DocumentNotFoundError) missing.push(key);
      else wrong.push(`${key}: ${describeError(err)}`);
    }
  });
  return { missing, wrong };
}

it(`${DURABLE_AWAITED} durable upserts, ${LEVELS.map((l) => l.name).join(' and ')} in turn, each succeed`, async () => {
  const failures = [];
  await pool([...Array(DURABLE_AWAITED).keys()], IN_FLIGHT, (i) =>
    durableUpsert(i).catch((err) => { failures.push(`${i}: ${describeError(err)}`); }));
  assert.deepEqual(failures, [], 'every durable upsert succeeds');
  assert.equal(durable.size, DURABLE_AWAITED);
});

it('SIGKILL with the disk held: every acknowledged durable upsert reads back with its content and CAS', async (t) => {
  assert.equal(durable.size, DURABLE_AWAITED, 'the durable upserts above ran');
  holdFile.hold();
  let durableOps;
  try {
    // More durable upserts, which must now wait for the disk, and the control, which need not.
    durableOps = Promise.allSettled(
      Array.from({ length: DURABLE_AT_KILL }, (_, i) => durableUpsert(DURABLE_AWAITED + i)));
    const plainOps = await Promise.allSettled(Array.from({ length: PLAIN_AT_KILL }, (_, i) =>
      upsertRecorded(plain, `plain-${RUN}-${i}`, { plain: true, run: RUN, i }, {})));
    const plainFailures = plainOps.filter((r) => r.status === 'rejected').map((r) => describeError(r.reason));
    assert.deepEqual(plainFailures.slice(0, 3), [], 'plain upserts succeed with the disk held');
    const killed = ternd;
    ternd = undefined;
    assert.equal(await killed.kill(), 'SIGKILL', `ternd was still running at the kill; its log:\n${killed.log()}`);
  } finally {
    holdFile.release();
  }
  // Closing the SDK fails what it still waits for; a success that got here came from ternd
  // before it died, so it counts as acknowledged.
  await closeCluster();
  await durableOps;
  const durableAtKill = durable.size - DURABLE_AWAITED;
  // With the disk held none can have been persisted, so none may have been acknowledged: one
  // that was is a level ignored (and its batch, already in the log, might survive the kill).
  assert.equal(durableAtKill, 0, 'no durable upsert is acknowledged while the disk is held');

  await connect();
  const d = await readBack(durable);
  const p = await readBack(plain);
  const summary = `durable: ${durable.size} acknowledged (${durableAtKill} of the ${DURABLE_AT_KILL} in flight at the kill), ` +
    `${d.missing.length} lost; plain (the control): ${plain.size} acknowledged, ${p.missing.length} lost`;
  t.diagnostic(summary);
  console.log(`durability after SIGKILL: ${summary}`);
  assert.deepEqual(d.missing, [], 'acknowledged durable upserts missing after SIGKILL');
  assert.deepEqual(d.wrong, [], 'acknowledged durable upserts read back with their content and CAS');
  assert.deepEqual(p.wrong, [], 'a plain upsert may be lost, but one that is there is whole');
});

it('after a clean stop (SIGTERM, exit status 0), every upsert reads back, plain ones too', async () => {
  const fresh = new Map();
  const failures = [];
  await pool([...Array(100).keys()], IN_FLIGHT, (i) =>
    upsertRecorded(fresh, `clean-${RUN}-${i}`, { clean: true, run: RUN, i }, {})
      .catch((err) => { failures.push(`${i}: ${describeError(err)}`); }));
  assert.deepEqual(failures, [], 'every plain upsert succeeds');
  await closeCluster();
  const stopped = ternd;
  ternd = undefined;
  await stopCleanly(stopped);
  await connect();
  for (const acked of [durable, fresh]) {
    const { missing, wrong } = await readBack(acked);
    assert.deepEqual(missing, [], 'upserts missing after a clean stop');
    assert.deepEqual(wrong, [], 'upserts read back with their content and CAS');
  }
});
