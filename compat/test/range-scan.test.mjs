// The official Couchbase Node.js SDK's KV range scans (collection.scan) against one real
// ternd: a range with inclusive and exclusive ends, a prefix, a sample drawn with a seed, ids
// only or whole documents, a named collection apart from the default one, small batches, and
// a scan consistent with a mutation just made. Without the bucket capability "rangeScan"
// and the three opcodes (0xda-0xdc) the SDK answers "unsupported operation".
import { it } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { terndForTests } from '../lib/ternd.mjs';
import { NUM_VBUCKETS, vbucketOf } from '../../scripts/cluster-admin.mjs';

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

it('a scan stopped early cancels the vbucket scans it left open', async () => {
  // Three keys in every vbucket, read one per continue: each vbucket's scan is still open after
  // its first item. ternd keeps at most 128 scans per bucket, so rounds that left theirs open
  // would soon have every create refused (retried until the scan timeout).
  const prefix = `early-${RUN}-`;
  const perVBucket = new Map();
  const keys = [];
  for (let i = 0; keys.length < 3 * NUM_VBUCKETS; i++) {
    const id = `${prefix}${i}`;
    const count = perVBucket.get(vbucketOf(id)) ?? 0;
    if (count < 3) {
      perVBucket.set(vbucketOf(id), count + 1);
      keys.push(id);
    }
  }
  for (let i = 0; i < keys.length; i += 64) {
    await Promise.all(keys.slice(i, i + 64).map((id) => servers.coll.upsert(id, { id })));
  }
  for (let round = 0; round < 40; round++) {
    const scan = servers.coll.scan(new PrefixScan(prefix), { idsOnly: true, batchItemLimit: 1, concurrency: 16 });
    let seen = 0;
    await new Promise((resolve, reject) => {
      scan.on('result', () => {
        seen++;
        scan.cancelStreaming();
      });
      scan.on('error', reject);
      scan.on('end', resolve);
    });
    assert.ok(seen >= 1 && seen < keys.length, `round ${round} saw ${seen} of ${keys.length}`);
  }
  const all = await servers.coll.scan(new PrefixScan(prefix), { idsOnly: true, concurrency: 16 });
  assert.equal(all.length, keys.length);
});
