// The official Node.js SDK's side of the transaction interoperability tests, which the .NET
// suite runs (dotnet/test/Tern.Client.Tests/Transactions/Interop) against the same ternd as
// Tern.Client:
//   node tx-interop.mjs hold CONNSTR KEY DELTA
//     reads KEY ({ v }), stages { v: v + DELTA }, prints "staged", waits for a line on standard
//     input, then lets the transaction commit and prints "committed".
//   node tx-interop.mjs increment CONNSTR KEY DELTA
//     one transaction that adds DELTA to KEY's v; prints { ok, error } as JSON.
//   node tx-interop.mjs read CONNSTR KEY...
//     reads each KEY in one transaction (a "bin:" prefix reads it as binary) and prints one JSON
//     line per key: { key, found, json } or { key, found, base64, flags }.
//   node tx-interop.mjs write CONNSTR PREFIX
//     one transaction over PREFIX-json (insert { n: 1, s: "é" }), PREFIX-bin (insert bytes 0..255),
//     PREFIX-rep (replace with { v: 2 }) and PREFIX-rem (remove); prints "committed".
//   node tx-interop.mjs clean CONNSTR MARKER_KEY
//     runs one transaction (an insert of MARKER_KEY) so that its lost-attempt cleanup, with a
//     2 s window, watches the default collection; prints "cleaning", and runs until a line
//     arrives on standard input.
//   node tx-interop.mjs hold-write CONNSTR PREFIX
//     stages what write does, prints "staged", waits for a line on standard input, and then
//     throws: the transaction rolls back; prints "rolled back".
import readline from 'node:readline';
import couchbase from 'couchbase';
import { USER, PASSWORD, BUCKET } from './ternd.mjs';

const { DocumentNotFoundError, RawBinaryTranscoder, TransactionOperationFailedError } = couchbase;
const binary = new RawBinaryTranscoder();
const [command, connStr, ...args] = process.argv.slice(2);
const cluster = await couchbase.connect(connStr, {
  username: USER,
  password: PASSWORD,
  timeouts: { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 },
  transactions: { cleanupConfig: { cleanupWindow: 2000 } },
});
const coll = cluster.bucket(BUCKET).defaultCollection();
const run = (body) => cluster.transactions().run(body, { timeout: 30000 });
const nextLine = () => new Promise((resolve) => {
  readline.createInterface({ input: process.stdin }).once('line', resolve);
});
const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

async function stageWrites(ctx, prefix) {
  await ctx.insert(coll, `${prefix}-json`, { n: 1, s: 'é' });
  await ctx.insert(coll, `${prefix}-bin`, allBytes, { transcoder: binary });
  await ctx.replace(await ctx.get(coll, `${prefix}-rep`), { v: 2 });
  await ctx.remove(await ctx.get(coll, `${prefix}-rem`));
}

switch (command) {
  case 'hold': {
    const [key, delta] = args;
    await run(async (ctx) => {
      const doc = await ctx.get(coll, key);
      await ctx.replace(doc, { v: doc.content.v + Number(delta) });
      console.log('staged');
      await nextLine();
    });
    console.log('committed');
    break;
  }
  case 'increment': {
    const [key, delta] = args;
    let attempts = 0;
    try {
      await run(async (ctx) => {
        attempts++;
        // The SDK 4.7.1 retries an attempt only when the lambda returns: an operation error that
        // leaves the lambda ends run() at once (dist/transactions.js). Its attempt is spoiled
        // either way, so returning hands the retry decision (a conflict: retry) to the SDK.
        try {
          const doc = await ctx.get(coll, key);
          await ctx.replace(doc, { v: doc.content.v + Number(delta) });
        } catch (e) {
          if (!(e instanceof TransactionOperationFailedError)) throw e;
        }
      });
      console.log(JSON.stringify({ ok: true, attempts }));
    } catch (e) {
      console.log(JSON.stringify({ ok: false, error: `${e.constructor.name}: ${e.cause?.message ?? e.message}` }));
    }
    break;
  }
  case 'read': {
    const lines = [];
    await run(async (ctx) => {
      lines.length = 0;
      for (const arg of args) {
        const isBinary = arg.startsWith('bin:');
        const key = isBinary ? arg.slice(4) : arg;
        const doc = await ctx.get(coll, key, isBinary ? { transcoder: binary } : undefined).catch((e) => {
          if (e instanceof DocumentNotFoundError) return null;
          throw e;
        });
        if (!doc) lines.push({ key, found: false });
        else if (isBinary) lines.push({ key, found: true, base64: Buffer.from(doc.content).toString('base64') });
        else lines.push({ key, found: true, json: doc.content });
      }
    });
    for (const line of lines) console.log(JSON.stringify(line));
    break;
  }
  case 'write': {
    const [prefix] = args;
    await run((ctx) => stageWrites(ctx, prefix));
    console.log('committed');
    break;
  }
  case 'hold-write': {
    const [prefix] = args;
    try {
      await run(async (ctx) => {
        await stageWrites(ctx, prefix);
        console.log('staged');
        await nextLine();
        throw new Error('rolled back on purpose');
      });
    } catch {
      console.log('rolled back');
    }
    break;
  }
  case 'clean': {
    const [marker] = args;
    await run(async (ctx) => {
      await ctx.insert(coll, marker, { by: 'cleaner' });
    });
    console.log('cleaning');
    await nextLine();
    break;
  }
  default:
    throw new Error(`unknown command ${command}`);
}
await cluster.close();
process.exit(0);
