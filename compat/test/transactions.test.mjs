// The official Couchbase Node.js SDK's distributed transactions (cluster.transactions().run),
// which run on KV and sub-document alone, against one real ternd: inserts (staged as
// tombstones with the CreateAsDeleted doc flag, which HELLO must acknowledge), replaces and
// removes commit together; an application error rolls every one back; a get of a missing
// document fails the attempt as the SDK says. Each transaction is checked through plain KV
// reads afterwards, and no staged content shows through them.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { terndForTests, rejection, describeError } from '../lib/ternd.mjs';

const { DocumentExistsError, DocumentNotFoundError, TransactionFailedError } = couchbase;

// Generous for a busy two-core machine; a transaction's own timeout bounds its retries.
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const TRANSACTION_TIMEOUT_MS = 20000;
const RUN = `${process.pid}-${Date.now().toString(36)}`;

const servers = terndForTests({ timeouts: TIMEOUTS });

const run = (body) => servers.cluster.transactions().run(body, { timeout: TRANSACTION_TIMEOUT_MS });

async function absent(key) {
  const error = await rejection(servers.coll.get(key), `get of ${key}`);
  assert.ok(error instanceof DocumentNotFoundError, describeError(error));
}

it('an insert, a replace and a remove commit together', async () => {
  const [kept, changed, gone, added] = ['kept', 'changed', 'gone', 'added'].map((n) => `txn-${n}-${RUN}`);
  await servers.coll.upsert(kept, { v: 0 });
  await servers.coll.upsert(changed, { v: 1 });
  await servers.coll.upsert(gone, { v: 2 });
  const result = await run(async (ctx) => {
    const doc = await ctx.get(servers.coll, changed);
    assert.deepEqual(doc.content, { v: 1 });
    await ctx.replace(doc, { v: 10 });
    await ctx.insert(servers.coll, added, { v: 3 });
    // Read your own writes: the staged insert and replace show inside the transaction.
    assert.deepEqual((await ctx.get(servers.coll, added)).content, { v: 3 });
    assert.deepEqual((await ctx.get(servers.coll, changed)).content, { v: 10 });
    await ctx.remove(await ctx.get(servers.coll, gone));
  });
  assert.ok(result.transactionId);
  assert.equal(result.unstagingComplete, true);
  assert.deepEqual((await servers.coll.get(changed)).content, { v: 10 });
  assert.deepEqual((await servers.coll.get(added)).content, { v: 3 });
  assert.deepEqual((await servers.coll.get(kept)).content, { v: 0 });
  await absent(gone);
});

it('an application error rolls everything back, the staged insert included', async () => {
  const [changed, gone, added] = ['rb-changed', 'rb-gone', 'rb-added'].map((n) => `txn-${n}-${RUN}`);
  await servers.coll.upsert(changed, { v: 1 });
  await servers.coll.upsert(gone, { v: 2 });
  class Refused extends Error {}
  const error = await rejection(run(async (ctx) => {
    await ctx.replace(await ctx.get(servers.coll, changed), { v: 99 });
    await ctx.insert(servers.coll, added, { v: 3 });
    await ctx.remove(await ctx.get(servers.coll, gone));
    throw new Refused('the application changed its mind');
  }), 'a transaction whose lambda throws');
  assert.ok(error instanceof TransactionFailedError, describeError(error));
  assert.ok(error.cause instanceof Refused, describeError(error));
  assert.deepEqual((await servers.coll.get(changed)).content, { v: 1 });
  assert.deepEqual((await servers.coll.get(gone)).content, { v: 2 });
  await absent(added);
});

it('a get of a missing document fails the transaction with DocumentNotFound as its cause', async () => {
  const missing = `txn-missing-${RUN}`;
  const error = await rejection(run(async (ctx) => {
    await ctx.get(servers.coll, missing);
  }), 'a transaction reading a missing document');
  assert.ok(error instanceof TransactionFailedError, describeError(error));
  assert.ok(error.cause instanceof DocumentNotFoundError, describeError(error));
});

it('an insert of an existing document fails, and nothing else it staged commits', async () => {
  const [existing, added] = ['exists', 'exists-added'].map((n) => `txn-${n}-${RUN}`);
  await servers.coll.upsert(existing, { v: 1 });
  const error = await rejection(run(async (ctx) => {
    await ctx.insert(servers.coll, added, { v: 2 });
    await ctx.insert(servers.coll, existing, { v: 3 });
  }), 'a transaction inserting an existing document');
  assert.ok(error instanceof TransactionFailedError, describeError(error));
  assert.ok(error.cause instanceof DocumentExistsError, describeError(error));
  assert.deepEqual((await servers.coll.get(existing)).content, { v: 1 });
  await absent(added);
});
