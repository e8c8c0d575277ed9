// The official Couchbase Node.js SDK (npm couchbase, on Couchbase's C++ core) against one
// real ternd started from server/config/dev.toml: the issue 8 scenario, on the default
// collection and on app.users, then the failures a user meets (wrong password, unknown
// bucket, unknown collection), each bounded in time.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import {
  startTernd, stopCleanly, eventually, rejection, timed, describeError, USER, PASSWORD, BUCKET,
} from '../lib/ternd.mjs';

const {
  DocumentExistsError, CasMismatchError, DocumentNotFoundError, DocumentLockedError,
  AuthenticationFailureError, BucketNotFoundError, CollectionNotFoundError, ScopeNotFoundError,
  TimeoutError, CouchbaseError, RawBinaryTranscoder, RawStringTranscoder, DurabilityLevel, ServiceType,
} = couchbase;

// Generous for a busy two-core machine; the lock test uses its own shorter timeout on purpose.
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 20000;
// A failure (wrong password, unknown bucket or collection) must come back within this.
const FAILURE_BOUND_MS = 30000;
const RUN = `${process.pid}-${Date.now().toString(36)}`;

/** Polls get until the document is gone (DocumentNotFound), for at most 30 s. */
async function goneWithin30s(coll, k, what) {
  await eventually(what, async () => {
    try {
      await coll.get(k);
      return false;
    } catch (err) {
      if (err instanceof DocumentNotFoundError) return true;
      throw err;
    }
  }, { timeoutMs: 30000, intervalMs: 250 });
}

let ternd;
let cluster;
let bucket;

before(async () => {
  ternd = await startTernd();
  cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  bucket = cluster.bucket(BUCKET);
});

after(async () => {
  await cluster?.close();
  await stopCleanly(ternd);
});

it('connects, and the bucket is ready on the KV service', async () => {
  await bucket.waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
});

const targets = [
  { name: 'the default collection', collection: () => bucket.defaultCollection() },
  { name: 'app.users', collection: () => bucket.scope('app').collection('users') },
];

for (const target of targets) {
  describe(`KV on ${target.name}`, () => {
    let coll;
    let n = 0;
    const key = (what) => `${what}-${RUN}-${n++}`;
    before(() => { coll = target.collection(); });

    it('upsert then get: same content, same CAS', async () => {
      const k = key('upsert');
      const doc = { name: 'Ada', langs: ['en', 'fr'], n: 42, nested: { ok: true } };
      const up = await coll.upsert(k, doc);
      assert.ok(up.cas, 'upsert returns a CAS');
      assert.notEqual(up.cas.toString(), '0');
      const got = await coll.get(k);
      assert.deepEqual(got.content, doc);
      assert.equal(got.cas.toString(), up.cas.toString());
      // A second upsert replaces the content and changes the CAS.
      const up2 = await coll.upsert(k, { name: 'Grace' });
      assert.notEqual(up2.cas.toString(), up.cas.toString());
      assert.deepEqual((await coll.get(k)).content, { name: 'Grace' });
    });

    it('insert on an existing key: DocumentExists', async () => {
      const k = key('insert');
      await coll.insert(k, { v: 1 });
      const err = await rejection(coll.insert(k, { v: 2 }), 'insert on an existing key');
      assert.ok(err instanceof DocumentExistsError, describeError(err));
      assert.deepEqual((await coll.get(k)).content, { v: 1 });
    });

    it('replace with a stale CAS: CasMismatch; with the current CAS: replaced', async () => {
      const k = key('replace');
      const first = await coll.upsert(k, { v: 1 });
      const second = await coll.upsert(k, { v: 2 });
      const err = await rejection(coll.replace(k, { v: 3 }, { cas: first.cas }), 'replace with a stale CAS');
      assert.ok(err instanceof CasMismatchError, describeError(err));
      assert.deepEqual((await coll.get(k)).content, { v: 2 });
      const third = await coll.replace(k, { v: 4 }, { cas: second.cas });
      assert.notEqual(third.cas.toString(), second.cas.toString());
      assert.deepEqual((await coll.get(k)).content, { v: 4 });
      const missing = await rejection(coll.replace(key('replace-missing'), { v: 1 }), 'replace of a missing key');
      assert.ok(missing instanceof DocumentNotFoundError, describeError(missing));
    });

    it('remove then get: DocumentNotFound', async () => {
      const k = key('remove');
      await coll.upsert(k, { v: 1 });
      const removed = await coll.remove(k);
      assert.ok(removed.cas);
      const err = await rejection(coll.get(k), 'get after remove');
      assert.ok(err instanceof DocumentNotFoundError, describeError(err));
      const again = await rejection(coll.remove(k), 'remove of a removed key');
      assert.ok(again instanceof DocumentNotFoundError, describeError(again));
    });

    it('binary values round-trip, raw and through the default transcoder', async () => {
      const bytes = Buffer.alloc(4096);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + 3) & 0xff;
      const k = key('binary');
      const transcoder = new RawBinaryTranscoder();
      await coll.upsert(k, bytes, { transcoder });
      const got = await coll.get(k, { transcoder });
      assert.ok(Buffer.isBuffer(got.content));
      assert.ok(got.content.equals(bytes));
      // The default transcoder stores a Buffer with the binary flags and gives a Buffer back.
      const k2 = key('binary-default');
      await coll.upsert(k2, Buffer.from([0, 1, 2, 0xff, 0xfe]));
      const got2 = await coll.get(k2);
      assert.ok(Buffer.isBuffer(got2.content), `got ${typeof got2.content}`);
      assert.deepEqual([...got2.content], [0, 1, 2, 0xff, 0xfe]);
      // A string through the raw string transcoder.
      const k3 = key('string');
      await coll.upsert(k3, 'plain text, not JSON', { transcoder: new RawStringTranscoder() });
      assert.equal((await coll.get(k3, { transcoder: new RawStringTranscoder() })).content, 'plain text, not JSON');
    });

    it('expiry: a 1 s document goes away; a 1 h document stays', async () => {
      const short = key('expiry-short');
      const long = key('expiry-long');
      await coll.upsert(short, { v: 'short' }, { expiry: 1 });
      await coll.upsert(long, { v: 'long' }, { expiry: 3600 });
      await goneWithin30s(coll, short, 'the 1 s document is gone');
      assert.deepEqual((await coll.get(long)).content, { v: 'long' });
    });

    it('touch: sets a new expiry; on a missing key, DocumentNotFound', async () => {
      const k = key('touch');
      const kept = key('touch-kept');
      await coll.upsert(k, { v: 1 });
      await coll.upsert(kept, { v: 2 }, { expiry: 1 });
      const touched = await coll.touch(k, 1);
      assert.ok(touched.cas);
      await coll.touch(kept, 3600); // pushed back before it could expire: stays
      await goneWithin30s(coll, k, 'the touched document is gone');
      assert.deepEqual((await coll.get(kept)).content, { v: 2 });
      const err = await rejection(coll.touch(key('touch-missing'), 10), 'touch of a missing key');
      assert.ok(err instanceof DocumentNotFoundError, describeError(err));
    });

    it('getAndTouch: returns the content and sets the expiry', async () => {
      const k = key('gat');
      await coll.upsert(k, { v: 'gat' });
      const got = await coll.getAndTouch(k, 1);
      assert.deepEqual(got.content, { v: 'gat' });
      assert.ok(got.cas);
      await goneWithin30s(coll, k, 'the getAndTouch document is gone');
      const missing = await rejection(coll.getAndTouch(key('gat-missing'), 10), 'getAndTouch of a missing key');
      assert.ok(missing instanceof DocumentNotFoundError, describeError(missing));
    });

    it('getAndLock: a mutation is refused while locked; unlock, then it succeeds', async () => {
      const k = key('lock');
      const up = await coll.upsert(k, { v: 'before' });
      // Locked for the longest time ternd allows (30 s), far past the upsert's timeout below.
      const locked = await coll.getAndLock(k, 30);
      assert.deepEqual(locked.content, { v: 'before' });
      assert.notEqual(locked.cas.toString(), up.cas.toString(), 'a lock hands out a new CAS');
      // The server answers Locked; the SDK retries that until the operation's timeout, then
      // gives up: DocumentLocked, or a timeout whose reason is kv_locked. The timeout leaves
      // room for at least one answer on a busy machine: one before it would name no reason.
      const err = await rejection(coll.upsert(k, { v: 'while locked' }, { timeout: 5000 }), 'upsert of a locked key');
      const lockedRefusal = err instanceof DocumentLockedError ||
        // The C++ core names the reason key_value_locked (kv_locked in older cores).
        (err instanceof TimeoutError && (err.context?.retry_reasons ?? []).some((r) => /locked/.test(r)));
      assert.ok(lockedRefusal, describeError(err));
      await coll.unlock(k, locked.cas);
      const after = await coll.upsert(k, { v: 'after' });
      assert.ok(after.cas);
      assert.deepEqual((await coll.get(k)).content, { v: 'after' });
    });

    it('exists: true for a document, false for a missing or removed one', async () => {
      const k = key('exists');
      const up = await coll.upsert(k, { v: 1 });
      const yes = await coll.exists(k);
      assert.equal(yes.exists, true);
      assert.equal(yes.cas.toString(), up.cas.toString());
      assert.equal((await coll.exists(key('exists-missing'))).exists, false);
      await coll.remove(k);
      assert.equal((await coll.exists(k)).exists, false);
    });

    it('increment, decrement, append and prepend', async () => {
      const bin = coll.binary();
      const counter = key('counter');
      const created = await bin.increment(counter, 5, { initial: 10 });
      assert.equal(created.value, 10, 'a missing counter starts at the initial value');
      assert.equal((await bin.increment(counter, 5)).value, 15);
      assert.equal((await bin.decrement(counter, 3)).value, 12);
      assert.equal((await bin.decrement(counter, 100)).value, 0, 'a decrement stops at zero');
      // A counter is stored as its decimal text with flags 0, which the SDK reads as JSON.
      assert.equal((await coll.get(counter)).content, 0);
      const noCounter = await rejection(bin.increment(key('counter-missing'), 1), 'increment without initial');
      assert.ok(noCounter instanceof DocumentNotFoundError, describeError(noCounter));

      const s = key('append');
      const raw = new RawStringTranscoder();
      await coll.upsert(s, 'mid', { transcoder: raw });
      await bin.append(s, '-end');
      await bin.prepend(s, 'start-');
      assert.equal((await coll.get(s, { transcoder: raw })).content, 'start-mid-end');
      const noDoc = await rejection(bin.append(key('append-missing'), 'x'), 'append to a missing key');
      assert.ok(noDoc instanceof CouchbaseError, describeError(noDoc));
    });

    it('upsert with durability Majority', async () => {
      const k = key('durable');
      const up = await coll.upsert(k, { v: 'durable' }, { durabilityLevel: DurabilityLevel.Majority });
      assert.ok(up.cas);
      assert.deepEqual((await coll.get(k)).content, { v: 'durable' });
      const rm = await coll.remove(k, { durabilityLevel: DurabilityLevel.Majority });
      assert.ok(rm.cas);
    });

    it('500 concurrent upserts, then 500 concurrent gets', async () => {
      const keys = Array.from({ length: 500 }, (_, i) => key(`many-${i}`));
      const ups = await Promise.allSettled(keys.map((k, i) => coll.upsert(k, { i, k })));
      const failedUps = ups.filter((r) => r.status === 'rejected');
      assert.equal(failedUps.length, 0, `failed upserts: ${failedUps.slice(0, 3).map((r) => describeError(r.reason)).join('; ')}`);
      const gets = await Promise.allSettled(keys.map((k) => coll.get(k)));
      const failedGets = gets.filter((r) => r.status === 'rejected');
      assert.equal(failedGets.length, 0, `failed gets: ${failedGets.slice(0, 3).map((r) => describeError(r.reason)).join('; ')}`);
      gets.forEach((r, i) => assert.deepEqual(r.value.content, { i, k: keys[i] }));
    });
  });
}

describe('failures come back as errors, not hangs', () => {
  it('a wrong password: AuthenticationFailure', async () => {
    const { ms, error, value } = await timed(couchbase.connect(ternd.connStr, {
      username: USER, password: 'not-the-password', timeouts: { ...TIMEOUTS, bootstrapTimeout: 10000 },
    }));
    if (value) await value.close();
    assert.ok(error instanceof AuthenticationFailureError, `after ${ms} ms: ${describeError(error)}`);
    assert.ok(ms < FAILURE_BOUND_MS, `took ${ms} ms`);
  });

  it('an unknown bucket: the SDK reports bucket_not_found, and an operation fails in bounded time', async () => {
    // cluster.bucket() opens the bucket in the background and reports a failure only through
    // console.error ("failed to open bucket: NAME"); operations on it then time out (the C++
    // core does not fail them with the open's error). Both are asserted.
    const reported = [];
    const consoleError = console.error;
    console.error = (...args) => { reported.push(args.map(String).join(' ')); };
    try {
      const { ms, error } = await timed(
        cluster.bucket('no-such-bucket').defaultCollection().get('k', { timeout: 5000 }));
      assert.ok(error instanceof BucketNotFoundError || error instanceof TimeoutError,
        `after ${ms} ms: ${describeError(error)}`);
      assert.ok(ms < FAILURE_BOUND_MS, `took ${ms} ms`);
      await eventually('the SDK reports the bucket missing',
        () => reported.some((line) => /no-such-bucket/.test(line) && /bucket_not_found/.test(line)),
        { timeoutMs: FAILURE_BOUND_MS });
    } finally {
      console.error = consoleError;
    }
  });

  it('an unknown collection, and an unknown scope: errors in bounded time', async () => {
    // An unknown collection is retried by the SDK (the collection may yet be created) until
    // the operation's timeout, with the reason key_value_collection_outdated; an unknown scope
    // fails at once.
    const unknownCollection = await timed(
      bucket.scope('app').collection('no-such-collection').upsert(`k-${RUN}`, { v: 1 }, { timeout: 5000 }));
    const e1 = unknownCollection.error;
    assert.ok(e1 instanceof CollectionNotFoundError ||
      (e1 instanceof TimeoutError && (e1.context?.retry_reasons ?? []).some((r) => /collection_outdated/.test(r))),
      `app.no-such-collection after ${unknownCollection.ms} ms: ${describeError(e1)}`);
    assert.ok(unknownCollection.ms < FAILURE_BOUND_MS, `took ${unknownCollection.ms} ms`);

    const unknownScope = await timed(
      bucket.scope('no-such-scope').collection('users').get(`k-${RUN}`, { timeout: 5000 }));
    const e2 = unknownScope.error;
    assert.ok(e2 instanceof ScopeNotFoundError || e2 instanceof CollectionNotFoundError ||
      (e2 instanceof TimeoutError && (e2.context?.retry_reasons ?? []).some((r) => /collection_outdated/.test(r))),
      `no-such-scope.users after ${unknownScope.ms} ms: ${describeError(e2)}`);
    assert.ok(unknownScope.ms < FAILURE_BOUND_MS, `took ${unknownScope.ms} ms`);

    // The known collections still work on the same connection.
    await bucket.scope('app').collection('orders').upsert(`k-${RUN}`, { v: 'order' });
    assert.deepEqual((await bucket.scope('app').collection('orders').get(`k-${RUN}`)).content, { v: 'order' });
  });
});
