// The official Couchbase Node.js SDK (npm couchbase, on Couchbase's C++ core) against one real
// ternd: the issue 10 sub-document scenario (lookupIn, mutateIn, XATTRs, get with expiry and
// with a projection), on the default collection and on app.users. The SDK sends every lookupIn
// as SUBDOC_MULTI_LOOKUP and every mutateIn as SUBDOC_MULTI_MUTATION; its C++ core aborts on a
// per-spec status it does not know, so a run that finishes also proves ternd sends none.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { startTernd, stopCleanly, rejection, USER, PASSWORD, BUCKET } from '../lib/ternd.mjs';

const {
  LookupInSpec, MutateInSpec, StoreSemantics, ServiceType,
  PathNotFoundError, PathExistsError, DocumentNotFoundError, DocumentExistsError,
} = couchbase;

// Generous for a busy two-core machine.
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 20000;
const RUN = `${process.pid}-${Date.now().toString(36)}`;

let ternd;
let cluster;
let bucket;

before(async () => {
  ternd = await startTernd();
  cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  bucket = cluster.bucket(BUCKET);
  await bucket.waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
});

after(async () => {
  await cluster?.close();
  await stopCleanly(ternd);
});

const targets = [
  { name: 'the default collection', collection: () => bucket.defaultCollection() },
  { name: 'app.users', collection: () => bucket.scope('app').collection('users') },
];

const ada = () => ({ name: 'Ada', address: { city: 'Paris' }, langs: ['en', 'fr'], n: 42 });

for (const target of targets) {
  describe(`sub-document on ${target.name}`, () => {
    let coll;
    let n = 0;
    const key = (what) => `subdoc-${what}-${RUN}-${n++}`;
    const stored = async (what, doc = ada(), options = {}) => {
      const k = key(what);
      await coll.upsert(k, doc, options);
      return k;
    };
    before(() => { coll = target.collection(); });

    it('lookupIn get, exists and count; a missing path fails only its own entry', async () => {
      const k = await stored('lookup');
      const res = await coll.lookupIn(k, [
        LookupInSpec.get('address.city'),
        LookupInSpec.exists('name'),
        LookupInSpec.count('langs'),
        LookupInSpec.get('nowhere.at.all'),
        LookupInSpec.get('langs[-1]'),
      ]);
      assert.equal(res.content[0].value, 'Paris');
      assert.equal(res.content[0].error, null);
      assert.equal(res.content[1].value, true);
      assert.equal(res.content[2].value, 2);
      assert.ok(res.content[3].error instanceof PathNotFoundError,
        `the missing path answers PathNotFound, got ${res.content[3].error}`);
      assert.equal(res.content[4].value, 'fr');
      const got = await coll.get(k);
      assert.equal(res.cas.toString(), got.cas.toString(), 'lookupIn answers the document CAS');
    });

    it('lookupIn exists of a missing path is false, and a missing document is DocumentNotFound', async () => {
      const k = await stored('exists');
      const res = await coll.lookupIn(k, [LookupInSpec.exists('nope')]);
      assert.equal(Boolean(res.content[0].value), false);
      await assert.rejects(coll.lookupIn(key('absent'), [LookupInSpec.get('name')]), DocumentNotFoundError);
    });

    it('mutateIn upsert with createPath builds the missing parents', async () => {
      const k = await stored('upsert');
      const res = await coll.mutateIn(k, [MutateInSpec.upsert('address.geo.lat', 48.85, { createPath: true })]);
      assert.ok(res.cas, 'mutateIn returns a CAS');
      const got = await coll.get(k);
      assert.deepEqual(got.content, { ...ada(), address: { city: 'Paris', geo: { lat: 48.85 } } });
      assert.equal(got.cas.toString(), res.cas.toString());
    });

    it('mutateIn insert on an existing path is PathExists and changes nothing', async () => {
      const k = await stored('insert');
      const before = await coll.get(k);
      const err = await rejection(coll.mutateIn(k, [MutateInSpec.insert('name', 'Grace')]));
      assert.ok(err instanceof PathExistsError, `expected PathExists, got ${err}`);
      const after = await coll.get(k);
      assert.deepEqual(after.content, ada());
      assert.equal(after.cas.toString(), before.cas.toString());
    });

    it('mutateIn remove, the array operations and increment, in one request', async () => {
      const k = await stored('arrays');
      const res = await coll.mutateIn(k, [
        MutateInSpec.remove('address'),
        MutateInSpec.arrayAppend('langs', 'de'),
        MutateInSpec.arrayPrepend('langs', 'it'),
        MutateInSpec.arrayInsert('langs[1]', 'es'),
        MutateInSpec.arrayAddUnique('langs', 'pt'),
        MutateInSpec.increment('n', 5),
      ]);
      assert.equal(res.content[5].value, 47, 'increment answers the new value');
      const got = await coll.get(k);
      assert.deepEqual(got.content, { name: 'Ada', langs: ['it', 'es', 'en', 'fr', 'de', 'pt'], n: 47 });
      const dup = await rejection(coll.mutateIn(k, [MutateInSpec.arrayAddUnique('langs', 'en')]));
      assert.ok(dup instanceof PathExistsError, `arrayAddUnique of a present value: PathExists, got ${dup}`);
    });

    it('a multi-mutation with one failing spec changes nothing', async () => {
      const k = await stored('atomic');
      const before = await coll.get(k);
      const err = await rejection(coll.mutateIn(k, [
        MutateInSpec.upsert('added', 1),
        MutateInSpec.replace('missing.path', 2),
        MutateInSpec.increment('n', 1),
      ]));
      assert.ok(err instanceof PathNotFoundError, `expected PathNotFound, got ${err}`);
      const after = await coll.get(k);
      assert.deepEqual(after.content, ada());
      assert.equal(after.cas.toString(), before.cas.toString());
    });

    it('store semantics: upsert creates, insert refuses an existing document', async () => {
      const k = key('semantics');
      await coll.mutateIn(k, [MutateInSpec.upsert('made', true)], { storeSemantics: StoreSemantics.Upsert });
      assert.deepEqual((await coll.get(k)).content, { made: true });
      const err = await rejection(coll.mutateIn(k, [MutateInSpec.upsert('again', true)],
        { storeSemantics: StoreSemantics.Insert }));
      assert.ok(err instanceof DocumentExistsError, `expected DocumentExists, got ${err}`);
    });

    it('XATTRs: written and read with xattr specs, never shown by a plain get', async () => {
      const k = await stored('xattr');
      await coll.mutateIn(k, [
        MutateInSpec.upsert('meta.tag', 'blue', { xattr: true, createPath: true }),
        MutateInSpec.upsert('seen', true),
      ]);
      const res = await coll.lookupIn(k, [
        LookupInSpec.get('meta', { xattr: true }),
        LookupInSpec.get('meta.tag', { xattr: true }),
        LookupInSpec.get('seen'),
      ]);
      assert.deepEqual(res.content[0].value, { tag: 'blue' });
      assert.equal(res.content[1].value, 'blue');
      assert.equal(res.content[2].value, true);
      const got = await coll.get(k);
      assert.deepEqual(got.content, { ...ada(), seen: true }, 'a plain get shows the body only');
    });

    it('get withExpiry answers the expiry; get with project answers only those paths', async () => {
      const k = await stored('expiry', ada(), { expiry: 3600 });
      const now = Date.now() / 1000;
      const withExpiry = await coll.get(k, { withExpiry: true });
      assert.deepEqual(withExpiry.content, ada());
      const expiry = withExpiry.expiryTime instanceof Date
        ? withExpiry.expiryTime.getTime() / 1000 : Number(withExpiry.expiryTime);
      // Generous bounds: an hour from now, give or take five minutes of a slow machine.
      assert.ok(expiry > now + 3300 && expiry < now + 3900, `expiry ${expiry} is about an hour from ${now}`);

      const projected = await coll.get(k, { project: ['name', 'address.city'] });
      assert.deepEqual(projected.content, { name: 'Ada', address: { city: 'Paris' } });
    });
  });
}
