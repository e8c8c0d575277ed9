// The Node.js side of `make bench-sdk`: the official Couchbase Node.js SDK (npm couchbase, as
// pinned by compat/package-lock.json) runs the same load as Tern.Benchmarks' `sdk` mode and
// prints one JSON line per in-flight count, in the schema Tern.Benchmarks `sdk-report` reads.
//
// Usage: node compat/bench/sdk-load.mjs --target NAME=couchbase://HOST:PORT [load options]
// Load options, the same as Tern.Benchmarks `sdk` takes: --concurrency N[,N...] (alias
// --in-flight; default 64), --seconds S (10), --warmup S (2), --value-size B (256),
// --keys N (10000), --gets PERCENT (90), --user, --password, --bucket (Administrator,
// password, default).
//
// The load, step for step as in Tern.Benchmarks/Sdk/LoadRun.cs: N callers, each awaiting its
// previous operation before starting the next; caller c's n-th operation has sequence number
// i = c + n*N, works on key i % keys and is a get when i % 100 < gets, else an upsert. Values
// are one JSON document of exactly --value-size bytes (the same text in both harnesses),
// stored with JSON flags and read back as bytes: RawJsonTranscoder, so neither side parses or
// serializes JSON per operation. Latency: perf_hooks.createHistogram (HDR, 3 significant
// digits) of nanoseconds. Connect time: couchbase.connect + bucket + defaultCollection + the
// first get, the process's first time, then again.
import { performance, createHistogram } from 'node:perf_hooks';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import couchbase from 'couchbase';

const { RawJsonTranscoder, DocumentNotFoundError } = couchbase;
const sdkVersion = createRequire(import.meta.url)('couchbase/package.json').version;

function parseArgs(argv) {
  const options = {
    targets: [], concurrencies: [64], seconds: 10, warmup: 2, valueSize: 256, keys: 10000, gets: 90,
    user: 'Administrator', password: 'password', bucket: 'default',
  };
  const number = (name, text) => {
    const value = Number(text);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: not a number: ${text}`);
    return value;
  };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i];
    const value = argv[i + 1];
    if (value === undefined) throw new Error(`${name} needs a value`);
    switch (name) {
      case '--target': {
        const equals = value.indexOf('=');
        options.targets.push(equals > 0 ? { name: value.slice(0, equals), url: value.slice(equals + 1) } : { name: value, url: value });
        break;
      }
      case '--concurrency': case '--in-flight':
        options.concurrencies = value.split(',').map((v) => number(name, v));
        break;
      case '--seconds': options.seconds = number(name, value); break;
      case '--warmup': options.warmup = number(name, value); break;
      case '--value-size': options.valueSize = number(name, value); break;
      case '--keys': options.keys = number(name, value); break;
      case '--gets': options.gets = number(name, value); break;
      case '--user': options.user = value; break;
      case '--password': options.password = value; break;
      case '--bucket': options.bucket = value; break;
      default: throw new Error(`unknown option ${name}`);
    }
  }
  if (options.targets.length === 0) throw new Error('needs at least one --target NAME=couchbase://HOST:PORT');
  for (const t of options.targets) {
    if (!t.url.startsWith('couchbase://')) throw new Error(`the Node.js SDK speaks couchbase:// only, not ${t.url}`);
  }
  if (options.concurrencies.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--concurrency: whole numbers from 1');
  if (!Number.isInteger(options.keys) || options.keys < 1) throw new Error('--keys: a whole number from 1');
  if (options.gets > 100) throw new Error('--gets: a percentage, 0 to 100');
  return options;
}

/**
 * A JSON document of exactly `size` bytes (ASCII), the same text as Tern.Benchmarks'
 * BenchDocument.Create: a user-like record padded with pseudo-random letters and digits (a
 * 32-bit LCG from a fixed seed, so that Snappy cannot shrink it to the 0.83 both SDKs want
 * before they send a value compressed), or a bare {"pad":"..."} when `size` is too small.
 */
export function benchDocument(size) {
  const full = '{"type":"bench","name":"Ada Lovelace","email":"ada@example.com","langs":["en","fr"],"visits":42,"active":true,"pad":"';
  const bare = '{"pad":"';
  const suffix = '"}';
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const prefix = size >= full.length + suffix.length ? full : bare;
  if (size < prefix.length + suffix.length) throw new Error(`--value-size: at least ${bare.length + suffix.length} bytes`);
  let pad = '';
  let state = 2463534242;
  for (let i = prefix.length + suffix.length; i < size; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    pad += alphabet[(state >>> 16) % alphabet.length];
  }
  return Buffer.from(prefix + pad + suffix, 'ascii');
}

/** Runs `callers` closed-loop callers until `seconds` have passed; every latency goes into `histogram`. */
async function runCallers(collection, keys, value, gets, callers, seconds, histogram, opts) {
  const stopAt = performance.now() + seconds * 1000;
  const caller = async (c) => {
    for (let i = c; ; i += callers) {
      const start = performance.now();
      if (start >= stopAt) return;
      const key = keys[i % keys.length];
      if (i % 100 < gets) await collection.get(key, opts);
      else await collection.upsert(key, value, opts);
      histogram.record(Math.max(1, Math.round((performance.now() - start) * 1e6)));
    }
  };
  await Promise.all(Array.from({ length: callers }, (_, c) => caller(c)));
}

/**
 * Connects as an application does and times it: couchbase.connect, bucket, defaultCollection
 * and the first get (a miss still counts its round trip; bench-sdk.sh stores the keys first).
 */
async function connect(target, options, firstKey, opts) {
  const start = performance.now();
  const cluster = await couchbase.connect(target.url, { username: options.user, password: options.password });
  try {
    const collection = cluster.bucket(options.bucket).defaultCollection();
    try {
      await collection.get(firstKey, opts);
    } catch (err) {
      if (!(err instanceof DocumentNotFoundError)) throw err;
    }
    return { cluster, collection, millis: performance.now() - start };
  } catch (err) {
    await cluster.close();
    throw err;
  }
}

async function runTarget(target, options, keys, value) {
  const opts = { transcoder: new RawJsonTranscoder() };
  // The process's first connect, then a second one in the same process (as Tern.Benchmarks does).
  const { cluster, collection, millis: connectMillis } = await connect(target, options, keys[0], opts);
  const results = [];
  try {
    const again = await connect(target, options, keys[0], opts);
    await again.cluster.close();
    const reconnectMillis = again.millis;

    // Load every key (64 in flight), so that every get finds its document.
    let next = 0;
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (next < keys.length) await collection.upsert(keys[next++], value, opts);
    }));

    // Nanoseconds from 1 ns to 60 s, 3 significant digits (as Tern.Benchmarks' LatencyRecorder).
    const histogram = createHistogram({ lowest: 1, highest: 60e9, figures: 3 });
    for (const callers of options.concurrencies) {
      await runCallers(collection, keys, value, options.gets, callers, options.warmup, histogram, opts);
      histogram.reset();
      const started = performance.now();
      await runCallers(collection, keys, value, options.gets, callers, options.seconds, histogram, opts);
      const seconds = (performance.now() - started) / 1000;
      const operations = histogram.count;
      results.push({
        client: `Node.js SDK ${sdkVersion}`,
        server: target.name,
        scheme: 'couchbase',
        inFlight: callers,
        operations,
        seconds,
        opsPerSecond: operations / seconds,
        p50Micros: histogram.percentile(50) / 1000,
        p99Micros: histogram.percentile(99) / 1000,
        allocatedBytesPerOperation: null,
        connectMillis,
        reconnectMillis,
        valueSize: options.valueSize,
        keys: options.keys,
        getPercent: options.gets,
        warmupSeconds: options.warmup,
      });
    }
  } finally {
    await cluster.close();
  }
  return results;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const keys = Array.from({ length: options.keys }, (_, i) => `bench::${String(i).padStart(8, '0')}`);
  const value = benchDocument(options.valueSize);
  for (const target of options.targets) {
    for (const result of await runTarget(target, options, keys, value)) console.log(JSON.stringify(result));
  }
}

// Run as a script (not when imported for benchDocument).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error(`sdk-load: ${err?.stack ?? err}`);
    process.exit(1);
  });
}
