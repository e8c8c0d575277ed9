// The official Couchbase Node.js SDK's distributed transactions (cluster.transactions().run),
// which run on KV and sub-document alone, against one real ternd: inserts (staged as
// tombstones with the CreateAsDeleted doc flag, which HELLO must acknowledge), replaces and
// removes commit together; an application error rolls every one back; a get of a missing
// document fails the attempt as the SDK says. Each transaction is checked through plain KV
// reads afterwards, and no staged content shows through them. Two processes moving money
// between the same accounts at once conserve the total, and every transfer either process
// saw committed shows in the balances exactly once.
import { it } from 'node:test';
import { spawn } from 'node:child_process';
import path from 'node:path';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { terndForTests, rejection, describeError, repoRoot } from '../lib/ternd.mjs';

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

it('two processes transferring between the same accounts conserve the total, each commit counted once', async () => {
  const ACCOUNTS = 20;
  const START = 1000;
  const SECONDS = 8;
  for (let i = 0; i < ACCOUNTS; i++) await servers.coll.upsert(`acct-${i}`, { balance: START });
  const worker = (seed) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'compat', 'lib', 'transfer-worker.mjs'),
      servers.ternd.connStr, String(SECONDS), String(ACCOUNTS), String(seed)]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`worker exited ${code}: ${err}`))));
  });
  const results = await Promise.all([worker(1), worker(2)]);
  let total = 0;
  for (let i = 0; i < ACCOUNTS; i++) {
    const balance = (await servers.coll.get(`acct-${i}`)).content.balance;
    total += balance;
    // Each account moved by exactly the transfers that the two processes saw commit.
    assert.equal(balance, START + results[0].deltas[i] + results[1].deltas[i], `account ${i}: ${JSON.stringify(results)}`);
  }
  assert.equal(total, ACCOUNTS * START);
  for (const r of results) {
    assert.ok(r.committed > 0, JSON.stringify(r));
    // Conflicts end an attempt (the Node.js SDK 4.7.1 does not retry a lambda whose operation
    // failed); none may end in doubt.
    assert.ok(!Object.keys(r.causes).some((k) => k.startsWith('TransactionCommitAmbiguousError')), JSON.stringify(r.causes));
  }
});
