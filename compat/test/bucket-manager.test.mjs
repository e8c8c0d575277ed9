// The official Couchbase Node.js SDK's bucket manager (cluster.buckets()) against a real ternd's
// management port: every call with its typed errors, a bucket made over HTTP serving KV at
// once, flush between two test cases (ephemeral and couchbase buckets), a bucket dropped under
// an open cluster object, and buckets, collections and documents made through the managers
// still there after a restart on the same data directory.
import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import {
  startTernd, stopCleanly, tempDataDir, rejection, timed, describeError, BUCKET,
} from '../lib/ternd.mjs';
import {
  connectManaged, managedTernd, settingsOf, scopesOf, READY_TIMEOUT_MS,
} from '../lib/management.mjs';

const {
  BucketExistsError, BucketNotFoundError, BucketNotFlushableError, InvalidArgumentError,
  DocumentNotFoundError, TimeoutError, RequestCanceledError, BucketType, EvictionPolicy, DurabilityLevel, ServiceType,
} = couchbase;

const RUN = `${process.pid}-${Date.now().toString(36)}`;

/** The HTTP answer behind a management error (the SDK keeps it in the error's context). */
const bodyOf = (err) => err?.context?.response_body ?? '';

/**
 * Opens `name` on `cluster` and waits until its KV service answers an operation: ready alone
 * may come before the SDK has finished opening the bucket, and a cluster closed in between
 * keeps node running until the open times out.
 */
async function openBucket(cluster, name) {
  const bucket = cluster.bucket(name);
  await bucket.waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
  await bucket.defaultCollection().exists(`open-${RUN}`);
  return bucket;
}

describe('bucket manager', () => {
  const env = managedTernd();
  let cluster;
  let buckets;

  before(() => {
    cluster = env.cluster;
    buckets = cluster.buckets();
  });

  it('getAllBuckets and getBucket read the configured bucket', async () => {
    const all = await buckets.getAllBuckets();
    assert.deepEqual(all.map((b) => b.name), [BUCKET]);
    // dev.toml: a couchbase bucket of 256 MiB, flush enabled, no replicas.
    const expected = {
      name: BUCKET, bucketType: BucketType.Couchbase, ramQuotaMB: 256, numReplicas: 0,
      flushEnabled: true, maxExpiry: 0, evictionPolicy: EvictionPolicy.ValueOnly,
      minimumDurabilityLevel: DurabilityLevel.None,
    };
    assert.deepEqual(settingsOf(all[0]), expected);
    assert.deepEqual(settingsOf(await buckets.getBucket(BUCKET)), expected);
  });

  const made = [
    {
      what: 'an ephemeral bucket',
      settings: {
        name: 'eph-made', bucketType: BucketType.Ephemeral, ramQuotaMB: 100, flushEnabled: true,
        maxExpiry: 3600, evictionPolicy: EvictionPolicy.NotRecentlyUsed,
        minimumDurabilityLevel: DurabilityLevel.Majority,
      },
    },
    {
      what: 'a couchbase bucket (full eviction, a durability minimum)',
      settings: {
        name: 'cb-made', bucketType: BucketType.Couchbase, ramQuotaMB: 128, flushEnabled: false,
        maxExpiry: 0, evictionPolicy: EvictionPolicy.FullEviction,
        minimumDurabilityLevel: DurabilityLevel.PersistToMajority,
      },
    },
  ];
  for (const { what, settings } of made) {
    it(`createBucket makes ${what}, with its settings, serving KV at once`, async () => {
      await buckets.createBucket(settings);
      assert.deepEqual(settingsOf(await buckets.getBucket(settings.name)), { ...settings, numReplicas: 0 });
      assert.ok((await buckets.getAllBuckets()).some((b) => b.name === settings.name), 'listed by getAllBuckets');
      const coll = (await openBucket(cluster, settings.name)).defaultCollection();
      const up = await coll.upsert(`k-${RUN}`, { madeOver: 'HTTP' });
      const got = await coll.get(`k-${RUN}`);
      assert.deepEqual(got.content, { madeOver: 'HTTP' });
      assert.equal(got.cas.toString(), up.cas.toString());
    });
  }

  it('updateBucket changes the quota, flush and maxExpiry of a live bucket', async () => {
    await buckets.createBucket({ name: 'cb-edit', bucketType: BucketType.Couchbase, ramQuotaMB: 100 });
    const before = await buckets.getBucket('cb-edit');
    assert.equal(before.flushEnabled, false);
    await buckets.updateBucket({
      name: 'cb-edit', bucketType: BucketType.Couchbase, ramQuotaMB: 150, flushEnabled: true, maxExpiry: 60,
    });
    const edited = settingsOf(await buckets.getBucket('cb-edit'));
    assert.deepEqual(edited, { ...settingsOf(before), ramQuotaMB: 150, flushEnabled: true, maxExpiry: 60 });
  });

  it('a bucket that exists: createBucket answers BucketExistsError', async () => {
    const err = await rejection(
      buckets.createBucket({ name: BUCKET, bucketType: BucketType.Couchbase, ramQuotaMB: 100 }), 'create default again');
    assert.ok(err instanceof BucketExistsError, describeError(err));
  });

  it('an unknown bucket: get, update and drop answer BucketNotFoundError', async () => {
    const calls = {
      getBucket: () => buckets.getBucket('no-such-bucket'),
      updateBucket: () => buckets.updateBucket({ name: 'no-such-bucket', ramQuotaMB: 100 }),
      dropBucket: () => buckets.dropBucket('no-such-bucket'),
    };
    for (const [name, call] of Object.entries(calls)) {
      const err = await rejection(call(), name);
      assert.ok(err instanceof BucketNotFoundError, `${name}: ${describeError(err)}`);
    }
  });

  it('an unknown bucket: flushBucket answers BucketNotFoundError', async () => {
    const err = await rejection(buckets.flushBucket('no-such-bucket'), 'flush an unknown bucket');
    assert.ok(err instanceof BucketNotFoundError, describeError(err));
  });

  it('a replica count above 0 is refused, saying ternd keeps no replicas', async () => {
    const err = await rejection(
      buckets.createBucket({ name: 'replicated', ramQuotaMB: 100, numReplicas: 1 }), 'numReplicas 1');
    assert.ok(err instanceof InvalidArgumentError, describeError(err));
    assert.match(bodyOf(err), /"replicaNumber":"ternd keeps no replicas/);
    await rejection(buckets.getBucket('replicated'), 'the refused bucket is not there');
  });

  it('a quota below 100 MiB is refused with Couchbase\'s message', async () => {
    const err = await rejection(buckets.createBucket({ name: 'tiny', ramQuotaMB: 50 }), 'ramQuotaMB 50');
    assert.ok(err instanceof InvalidArgumentError, describeError(err));
    assert.match(bodyOf(err), /"ramQuota":"RAM quota cannot be less than 100 MiB"/);
    await rejection(buckets.getBucket('tiny'), 'the refused bucket is not there');
  });

  it('flushBucket on a bucket with flush disabled answers BucketNotFlushableError', async () => {
    await buckets.createBucket({ name: 'no-flush', bucketType: BucketType.Ephemeral, ramQuotaMB: 100, flushEnabled: false });
    const coll = (await openBucket(cluster, 'no-flush')).defaultCollection();
    await coll.upsert(`kept-${RUN}`, { kept: true });
    const err = await rejection(buckets.flushBucket('no-flush'), 'flush with flush disabled');
    assert.ok(err instanceof BucketNotFlushableError, describeError(err));
    assert.deepEqual((await coll.get(`kept-${RUN}`)).content, { kept: true }, 'nothing was flushed');
  });

  it('dropBucket removes a bucket: gone from getAllBuckets, getBucket answers BucketNotFoundError', async () => {
    await buckets.createBucket({ name: 'dropped', bucketType: BucketType.Ephemeral, ramQuotaMB: 100 });
    await buckets.getBucket('dropped');
    await buckets.dropBucket('dropped');
    assert.ok(!(await buckets.getAllBuckets()).some((b) => b.name === 'dropped'), 'not listed');
    const err = await rejection(buckets.getBucket('dropped'), 'get after drop');
    assert.ok(err instanceof BucketNotFoundError, describeError(err));
  });

  it('a bucket dropped while a cluster object has it open: its next operation fails within its timeout', async () => {
    await buckets.createBucket({ name: 'doomed', bucketType: BucketType.Ephemeral, ramQuotaMB: 100 });
    // Another cluster object, connected and using the bucket before the drop.
    const user = await connectManaged(env.ternd, { bucket: 'doomed' });
    try {
      const coll = user.bucket('doomed').defaultCollection();
      await coll.upsert(`k-${RUN}`, { doomed: true });
      await buckets.dropBucket('doomed');
      // ternd closes the bucket's connections (at their next request); the SDK then finds the
      // bucket gone. A read is retried until its own timeout, never past it (the bound is
      // generous for a busy machine); a write on the closing connection may instead be
      // cancelled (RequestCanceled: the SDK does not resend a write that may have happened).
      const OP_TIMEOUT_MS = 3000;
      const outcomes = await Promise.all([
        timed(coll.get(`k-${RUN}`, { timeout: OP_TIMEOUT_MS })),
        timed(coll.upsert(`k2-${RUN}`, { after: 'drop' }, { timeout: OP_TIMEOUT_MS })),
      ]);
      for (const [name, { ms, error }] of [['get', outcomes[0]], ['upsert', outcomes[1]]]) {
        assert.ok(error, `${name} on a dropped bucket must fail, it succeeded`);
        assert.ok(error instanceof TimeoutError || error instanceof BucketNotFoundError
          || error instanceof RequestCanceledError, `${name}: ${describeError(error)}`);
        assert.ok(ms < OP_TIMEOUT_MS + 15000, `${name} took ${ms} ms, its timeout is ${OP_TIMEOUT_MS} ms`);
      }
    } finally {
      await user.close();
    }
  });
});

// A test harness's flush between test cases: each case starts on an empty bucket.
for (const [kind, bucketType] of [['ephemeral', BucketType.Ephemeral], ['couchbase', BucketType.Couchbase]]) {
  describe(`flush between test cases (${kind} bucket)`, () => {
    const name = `flushed-${kind}`;
    const keys = Array.from({ length: 20 }, (_, i) => `doc-${i}`);
    const env = managedTernd();
    let coll;

    before(async () => {
      await env.cluster.buckets().createBucket({ name, bucketType, ramQuotaMB: 100, flushEnabled: true });
      coll = (await openBucket(env.cluster, name)).defaultCollection();
    });

    beforeEach(async () => { await env.cluster.buckets().flushBucket(name); });

    it('a first case writes its documents', async () => {
      for (const k of keys) await coll.upsert(k, { case: 1, k });
      for (const k of keys) assert.deepEqual((await coll.get(k)).content, { case: 1, k });
    });

    it('the next case, after flushBucket, sees none of them and writes afresh', async () => {
      for (const k of keys) {
        const err = await rejection(coll.get(k), `get ${k} after the flush`);
        assert.ok(err instanceof DocumentNotFoundError, `${k}: ${describeError(err)}`);
      }
      // An insert (not an upsert) succeeds only where the key is really gone.
      for (const k of keys) await coll.insert(k, { case: 2 });
      assert.deepEqual((await coll.get(keys[0])).content, { case: 2 });
    });
  });
}

describe('buckets and collections made over the managers survive a restart', () => {
  const dataDir = tempDataDir();
  let ternd;
  let cluster;

  const start = async () => {
    ternd = await startTernd({ dataDir: dataDir.path });
    cluster = await connectManaged(ternd);
  };
  const stop = async () => {
    await cluster?.close();
    cluster = undefined;
    await stopCleanly(ternd);
    ternd = undefined;
  };

  after(async () => {
    try {
      await stop();
    } finally {
      dataDir.remove();
    }
  });

  const kept = {
    name: 'kept', bucketType: BucketType.Couchbase, ramQuotaMB: 120, numReplicas: 0, flushEnabled: true,
    maxExpiry: 0, evictionPolicy: EvictionPolicy.FullEviction, minimumDurabilityLevel: DurabilityLevel.None,
  };
  const keptEphemeral = {
    name: 'kept-eph', bucketType: BucketType.Ephemeral, ramQuotaMB: 100, numReplicas: 0, flushEnabled: false,
    maxExpiry: 600, evictionPolicy: EvictionPolicy.NotRecentlyUsed, minimumDurabilityLevel: DurabilityLevel.None,
  };
  const docs = Array.from({ length: 10 }, (_, i) => [`doc-${i}`, { i, run: RUN }]);
  let scopesBefore;

  it('makes buckets, a scope, collections and documents, drops a configured collection, then stops', async () => {
    await start();
    await cluster.buckets().createBucket(kept);
    await cluster.buckets().createBucket(keptEphemeral);
    const keptBucket = await openBucket(cluster, 'kept');
    const manager = keptBucket.collections();
    await manager.createScope('inventory');
    await manager.createCollection('items', 'inventory', { maxExpiry: 0 });
    await manager.createCollection('short', 'inventory', { maxExpiry: 90 });
    const items = keptBucket.scope('inventory').collection('items');
    for (const [k, v] of docs) await items.upsert(k, v);
    // On the configured bucket: a new collection, and one of dev.toml's dropped.
    const defaults = cluster.bucket(BUCKET).collections();
    await defaults.createCollection('extra', 'app');
    await defaults.dropCollection('orders', 'app');
    await cluster.bucket(BUCKET).scope('app').collection('extra').upsert('e', { extra: true });
    const eph = (await openBucket(cluster, 'kept-eph')).defaultCollection();
    await eph.upsert('memory-only', { gone: 'after a restart' });
    scopesBefore = {
      kept: scopesOf(await manager.getAllScopes()),
      [BUCKET]: scopesOf(await defaults.getAllScopes()),
    };
    assert.deepEqual(scopesBefore.kept.inventory, { items: 0, short: 90 });
    assert.deepEqual(scopesBefore[BUCKET].app, { users: 0, extra: 0 });
    await stop();
  });

  it('after the restart: the same buckets with their settings, scopes, collections and documents', async () => {
    assert.ok(scopesBefore, 'the first case ran');
    await start();
    const names = (await cluster.buckets().getAllBuckets()).map((b) => b.name).sort();
    assert.deepEqual(names, [BUCKET, 'kept', 'kept-eph'].sort());
    assert.deepEqual(settingsOf(await cluster.buckets().getBucket('kept')), kept);
    assert.deepEqual(settingsOf(await cluster.buckets().getBucket('kept-eph')), keptEphemeral);
    const keptBucket = await openBucket(cluster, 'kept');
    assert.deepEqual(scopesOf(await keptBucket.collections().getAllScopes()), scopesBefore.kept);
    assert.deepEqual(scopesOf(await cluster.bucket(BUCKET).collections().getAllScopes()), scopesBefore[BUCKET]);
    const items = keptBucket.scope('inventory').collection('items');
    for (const [k, v] of docs) assert.deepEqual((await items.get(k)).content, v, k);
    assert.deepEqual((await cluster.bucket(BUCKET).scope('app').collection('extra').get('e')).content, { extra: true });
    // An ephemeral bucket comes back empty: its documents lived in memory only.
    const eph = (await openBucket(cluster, 'kept-eph')).defaultCollection();
    const err = await rejection(eph.get('memory-only'), 'an ephemeral document after a restart');
    assert.ok(err instanceof DocumentNotFoundError, describeError(err));
  });
});
