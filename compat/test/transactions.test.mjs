// The official Couchbase Node.js SDK's distributed transactions (cluster.transactions().run),
// which run on KV and sub-document alone, against one real ternd: inserts (staged as
// tombstones with the CreateAsDeleted doc flag, which HELLO must acknowledge), replaces and
// removes commit together; an application error rolls every one back; a get of a missing
// document fails the attempt as the SDK says. Each transaction is checked through plain KV
// reads afterwards, and no staged content shows through them. Two processes moving money
// between the same accounts at once conserve the total, and every transfer either process
// saw committed shows in the balances exactly once. An attempt whose client died before it
// committed is found and removed from its ATR by another client's lost-attempt cleanup, and
// one whose client died in the middle of its commit is finished by it.
// Binary documents go through the same steps, their bytes staged in a binary XATTR value
// (HELLO SubdocBinaryXattr) and their flags carried in the sub-document extras.
import { it } from 'node:test';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import {
  terndForTests, rejection, describeError, eventually, repoRoot, USER, PASSWORD, BUCKET,
} from '../lib/ternd.mjs';

const {
  DocumentExistsError, DocumentNotFoundError, LookupInSpec, MutateInMacro, MutateInSpec, RawBinaryTranscoder,
  TransactionFailedError,
} = couchbase;

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

it("an attempt's start stamp (${Mutation.CAS}) keeps up with the server clock that cleanup judges it by", async () => {
  // Every SDK writes an ATR entry's start as the mutation's CAS and calls the attempt lost once
  // $vbucket.HLC.now passes start + expiry (+1.5 s): a CAS that lagged the wall clock made live
  // attempts look lost on a server up for longer than a transaction's timeout.
  const key = `txn-clock-${RUN}`;
  await servers.coll.upsert(key, { v: 1 });
  // Long enough that a stamp stuck near the server's start would be seconds behind.
  await new Promise((r) => setTimeout(r, 5000));
  await servers.coll.mutateIn(key, [MutateInSpec.upsert('stamp', MutateInMacro.Cas, { xattr: true })]);
  const read = await servers.coll.lookupIn(key, [
    LookupInSpec.get('stamp', { xattr: true }), LookupInSpec.get('$vbucket', { xattr: true }),
  ]);
  const stampMs = Number(BigInt(`0x${Buffer.from(read.content[0].value.slice(2), 'hex').reverse().toString('hex')}`) / 1000000n);
  const nowMs = Number(read.content[1].value.HLC.now) * 1000;
  // The HLC reads whole seconds: the stamp is within the second before it, give or take a busy machine's second.
  assert.ok(Math.abs(nowMs - stampMs) < 2500, `stamp ${stampMs} ms, server clock ${nowMs} ms`);
});

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

it('binary documents insert and replace in a transaction, bytes and flags intact', async () => {
  const [added, changed] = ['bin-added', 'bin-changed'].map((n) => `txn-${n}-${RUN}`);
  const transcoder = new RawBinaryTranscoder();
  // Every byte value, and bytes that are no JSON and no UTF-8.
  const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7) % 256));
  const replaced = Buffer.from([0xff, 0x00, 0xfe, 0x01]);
  await servers.coll.upsert(changed, Buffer.from('before'), { transcoder });
  await run(async (ctx) => {
    await ctx.insert(servers.coll, added, bytes, { transcoder });
    const doc = await ctx.get(servers.coll, changed, { transcoder });
    assert.deepEqual(doc.content, Buffer.from('before'));
    await ctx.replace(doc, replaced, { transcoder });
    // Read your own writes, binary too.
    assert.deepEqual((await ctx.get(servers.coll, added, { transcoder })).content, bytes);
  });
  // The transcoder refuses a document whose flags do not say binary: these came through.
  assert.deepEqual((await servers.coll.get(added, { transcoder })).content, bytes);
  assert.deepEqual((await servers.coll.get(changed, { transcoder })).content, replaced);
  // Nothing staged is left behind.
  const meta = await servers.coll.lookupIn(added, [LookupInSpec.exists('txn', { xattr: true })]);
  assert.equal(meta.content[0].value, false);
  // And a transaction reads the committed binary document as any other.
  await run(async (ctx) => {
    assert.deepEqual((await ctx.get(servers.coll, added, { transcoder })).content, bytes);
  });
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

it("another client's cleanup removes the attempt of a client that died before committing", async () => {
  const replaceKey = `lost-replace-${RUN}`;
  const insertKey = `lost-insert-${RUN}`;
  await servers.coll.upsert(replaceKey, { v: 1 });
  const died = spawnSync(process.execPath,
    [path.join(repoRoot, 'compat', 'lib', 'stage-and-die.mjs'), servers.ternd.connStr, replaceKey, insertKey],
    { encoding: 'utf8', timeout: 60000 });
  assert.equal(died.signal, 'SIGKILL', `${died.stdout}${died.stderr}`);
  assert.match(died.stdout, /staged/);

  // ternd kept what it was given: the staged replace in the document's txn XATTR, and the
  // attempt, PENDING, in the ATR that XATTR names; plain reads see neither write.
  const txn = (await servers.coll.lookupIn(replaceKey, [LookupInSpec.get('txn', { xattr: true })])).content[0].value;
  assert.deepEqual(txn.op.stgd, { v: 2 });
  const attempts = async () =>
    (await servers.coll.lookupIn(txn.atr.id, [LookupInSpec.get('attempts', { xattr: true })])).content[0].value;
  assert.equal((await attempts())[txn.id.atmpt]?.st, 'PENDING', JSON.stringify(await attempts()));
  assert.deepEqual((await servers.coll.get(replaceKey)).content, { v: 1 });
  await absent(insertKey);

  // A client with a short cleanup window, once it has run a transaction in the collection,
  // finds the expired attempt and removes it (a PENDING attempt has nothing to unstage).
  const cleaner = await couchbase.connect(servers.ternd.connStr, {
    username: USER, password: PASSWORD, transactions: { cleanupConfig: { cleanupWindow: 2000 } },
  });
  try {
    await cleaner.transactions().run(async (ctx) => {
      await ctx.insert(cleaner.bucket(BUCKET).defaultCollection(), `cleaner-${RUN}`, { by: 'cleaner' });
    });
    // Generous: the window is 2 s, the machine may be busy.
    await eventually('the lost attempt gone from its ATR', async () => !(await attempts())[txn.id.atmpt],
      { timeoutMs: 90000, intervalMs: 1000 });
  } finally {
    await cleaner.close();
  }
  // What it staged is abandoned: a new transaction writes over it.
  await run(async (ctx) => {
    await ctx.replace(await ctx.get(servers.coll, replaceKey), { v: 5 });
    await ctx.insert(servers.coll, insertKey, { v: 6 });
  });
  assert.deepEqual((await servers.coll.get(replaceKey)).content, { v: 5 });
  assert.deepEqual((await servers.coll.get(insertKey)).content, { v: 6 });
});

it("another client's cleanup finishes the commit of a client that died in the middle of it", async () => {
  // The client stages every document and waits; the test locks one of them and lets the
  // commit go. The commit point (the ATR entry COMMITTED) passes, but the locked document
  // refuses to be unstaged, so when the test kills the client at least that one is still
  // staged: no race with the commit's speed.
  const COUNT = 20;
  const prefix = `mid-commit-${RUN}-`;
  const keys = Array.from({ length: COUNT }, (_, i) => `${prefix}${i}`);
  await Promise.all(keys.map((k) => servers.coll.upsert(k, { v: 1 })));
  const child = spawn(process.execPath,
    // 10 s for the transaction: it must not expire while it waits for the test on a busy
    // machine, and the cleanup below takes its attempt for lost only once it has expired.
    [path.join(repoRoot, 'compat', 'lib', 'commit-and-die.mjs'), servers.ternd.connStr, prefix, String(COUNT), '10000']);
  let output = '';
  child.stderr.on('data', (d) => { output += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  let state;
  try {
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        output += d;
        if (output.includes('staged')) resolve();
      });
      child.on('exit', () => reject(new Error(`the client exited before staging: ${output}`)));
    });
    const txn = (await servers.coll.lookupIn(keys[0], [LookupInSpec.get('txn', { xattr: true })])).content[0].value;
    assert.ok(txn, `${keys[0]} is staged: ${output}`);
    state = async () =>
      (await servers.coll.lookupIn(txn.atr.id, [LookupInSpec.get('attempts', { xattr: true })])).content[0].value?.[txn.id.atmpt]?.st;
    assert.equal(await state(), 'PENDING');
    const locked = await servers.coll.getAndLock(keys[0], 30);
    child.stdin.write('commit\n');
    // Generous: the watch ends when the entry leaves PENDING, whatever the machine's speed.
    await eventually('the ATR entry past PENDING', async () => (await state()) !== 'PENDING', { timeoutMs: 60000, intervalMs: 10 });
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL', output);
    assert.equal(await state(), 'COMMITTED', output);
    const read = await servers.coll.lookupIn(keys[0], [LookupInSpec.exists('txn', { xattr: true })]);
    assert.equal(read.content[0].value, true, `${keys[0]} was unstaged through its lock`);
    await servers.coll.unlock(keys[0], locked.cas);
  } finally {
    child.kill('SIGKILL');
  }

  // A client with a short cleanup window, once it has run a transaction in the collection,
  // finds the expired COMMITTED attempt, unstages what is left and removes the entry.
  const cleaner = await couchbase.connect(servers.ternd.connStr, {
    username: USER, password: PASSWORD, transactions: { cleanupConfig: { cleanupWindow: 2000 } },
  });
  try {
    await cleaner.transactions().run(async (ctx) => {
      await ctx.insert(cleaner.bucket(BUCKET).defaultCollection(), `mid-commit-cleaner-${RUN}`, { by: 'cleaner' });
    });
    await eventually('the lost attempt gone from its ATR', async () => (await state()) === undefined,
      { timeoutMs: 90000, intervalMs: 1000 });
  } finally {
    await cleaner.close();
  }
  for (const k of keys) {
    assert.deepEqual((await servers.coll.get(k)).content, { v: 2 }, k);
    const read = await servers.coll.lookupIn(k, [LookupInSpec.exists('txn', { xattr: true })]);
    assert.equal(read.content[0].value, false, `${k} still carries txn`);
  }
});
