// The official Couchbase Node.js SDK's KV range scans (collection.scan) against one real
// ternd: a range with inclusive and exclusive ends, a prefix, a sample drawn with a seed, ids
// only or whole documents, a named collection apart from the default one, small batches, and
// a scan consistent with a mutation just made. Without the bucket capability "rangeScan"
// and the three opcodes (0xda-0xdc) the SDK answers "unsupported operation".
import { it } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { terndForTests } from '../lib/ternd.mjs';

const { MutationState, PrefixScan, RangeScan, SamplingScan, ScanTerm } = couchbase;

// Generous for a busy two-core machine; a scan creates one stream per vbucket (1024).
const TIMEOUTS = { kvTimeout: 10000, kvScanTimeout: 60000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const RUN = `${process.pid}-${Date.now().toString(36)}`;

const servers = terndForTests({ timeouts: TIMEOUTS });

const ids = (results) => results.map((r) => r.id).sort();
const key = (prefix, i) => `${prefix}-${RUN}-${String(i).padStart(3, '0')}`;

async function write(coll, prefix, count) {
  const written = new Map();
  for (let i = 0; i < count; i++) {
    const id = key(prefix, i);
    written.set(id, { id, result: await coll.upsert(id, { i, prefix }) });
  }
  return written;
}

it('a prefix scan returns every document with the prefix, content and CAS as a get sees them', async () => {
  const written = await write(servers.coll, 'pfx', 40);
  await servers.coll.upsert(`pfy-${RUN}`, { outside: true });
  const results = await servers.coll.scan(new PrefixScan(`pfx-${RUN}-`));
  assert.deepEqual(ids(results), [...written.keys()].sort());
  for (const r of results) {
    const { i } = r.content;
    assert.deepEqual(r.content, { i, prefix: 'pfx' });
    assert.equal(r.cas.toString(), written.get(r.id).result.cas.toString());
  }
  // Ids only, in small batches (a continue per item), the same keys.
  const only = await servers.coll.scan(new PrefixScan(`pfx-${RUN}-`), { idsOnly: true, batchItemLimit: 1 });
  assert.deepEqual(ids(only), [...written.keys()].sort());
  assert.equal(only[0].content, undefined);
});

it('a range scan honours inclusive and exclusive ends', async () => {
  await write(servers.coll, 'rng', 10);
  const range = (start, end) => servers.coll.scan(new RangeScan(start, end), { idsOnly: true });
  assert.deepEqual(ids(await range(new ScanTerm(key('rng', 2)), new ScanTerm(key('rng', 5)))),
    [2, 3, 4, 5].map((i) => key('rng', i)));
  assert.deepEqual(ids(await range(new ScanTerm(key('rng', 2), true), new ScanTerm(key('rng', 5), true))),
    [3, 4].map((i) => key('rng', i)));
  assert.deepEqual(await range(new ScanTerm(`rng-${RUN}-x`), new ScanTerm(`rng-${RUN}-y`)), []);
});

it('a sampling scan returns at most its limit, the same sample for the same seed', async () => {
  await write(servers.coll, 'smp', 30);
  const first = ids(await servers.coll.scan(new SamplingScan(10, 42), { idsOnly: true }));
  assert.equal(first.length, 10);
  assert.equal(new Set(first).size, 10);
  assert.deepEqual(ids(await servers.coll.scan(new SamplingScan(10, 42), { idsOnly: true })), first);
});

it('a scan of a named collection sees that collection only', async () => {
  const users = servers.bucket.scope('app').collection('users');
  const written = await write(users, 'col', 5);
  await write(servers.coll, 'col', 3);  // the same ids in the default collection
  const results = await users.scan(new PrefixScan(`col-${RUN}-`));
  assert.deepEqual(ids(results), [...written.keys()].sort());
  assert.ok(results.every((r) => r.content.prefix === 'col'));
});

it('a scan consistent with a mutation sees it', async () => {
  const id = key('cst', 0);
  const result = await servers.coll.upsert(id, { fresh: true });
  const state = new MutationState(result.token);
  const results = await servers.coll.scan(new PrefixScan(`cst-${RUN}-`), { consistentWith: state });
  assert.deepEqual(results.map((r) => [r.id, r.content]), [[id, { fresh: true }]]);
});
