// Helpers for the compat suite: where things are, starting and stopping a real ternd, the
// three-node cluster from scripts/cluster.sh, and small waiting helpers.
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import couchbase from 'couchbase';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const terndPath = path.resolve(repoRoot, process.env.TERND ?? 'build/release/server/ternd');
// The test tool that holds every fsync of a program while a file exists
// (server/test/tools/hold_fsync.cc): by default the one built beside ternd.
export const holdFsyncPath = path.resolve(repoRoot,
  process.env.HOLD_FSYNC ?? path.join(path.dirname(terndPath), 'hold_fsync'));
export const configPath = path.resolve(repoRoot, process.env.TERND_CONFIG ?? 'server/config/dev.toml');
// More ternd flags for every server the tests start (scripts/cluster.sh reads the same
// variable): TERND_ARGS="--io uring" runs the suite on the io_uring backend.
const extraArgs = (process.env.TERND_ARGS ?? '').split(/\s+/).filter(Boolean);
export const clusterScript = path.join(repoRoot, 'scripts', 'cluster.sh');

export const USER = 'Administrator';
export const PASSWORD = 'password';
export const BUCKET = 'default';

// Generous: the suite runs on busy two-core machines.
export const START_TIMEOUT_MS = 30000;
export const STOP_TIMEOUT_MS = 15000;

/**
 * A fresh temporary data directory for ternd's couchbase buckets: { path, remove() }. For a
 * test that restarts ternd on the same data (pass { dataDir: dir.path } to each start).
 */
export function tempDataDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tern-compat-data-'));
  return { path: dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A hold file for startTernd({ holdFile }), in a fresh temporary directory: { path, hold(),
 * release(), remove() }. hold() creates it (ternd's fsyncs wait from then on), release()
 * deletes it (they go on), remove() deletes the directory.
 */
export function tempHoldFile() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tern-compat-hold-'));
  const file = path.join(dir, 'hold');
  return {
    path: file,
    hold: () => fs.writeFileSync(file, ''),
    release: () => fs.rmSync(file, { force: true }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Starts ternd on a free port (--port 0; the port is read from its "listening on" log line).
 * dev.toml's bucket is persistent: each start gets a fresh temporary --data-dir, removed once
 * ternd has exited, so that tests never share or leave data; pass `dataDir` to use (and keep)
 * a directory of your own instead, e.g. across a restart. With `holdFile`, ternd runs under
 * hold_fsync: while that file exists every fsync it makes waits, so nothing it writes becomes
 * durable (remove the file before stop(): a clean stop flushes first).
 * The management (HTTP) port is on a free port too (--mgmt-port 0) unless `args` gives one.
 * With `tls` (true, or { leaf } naming a server certificate of scripts/test-certs.sh:
 * 'server' by default, 'other' for one from another CA), ternd also serves TLS on free ports
 * (--tls-port 0, and --mgmt-tls-port 0 unless `args` gives one), with certificates
 * from testCertificates(); the result then has tlsPort, mgmtTlsPort, caPath (the CA that
 * signed its certificate), certDir and tlsConnStr (couchbases://).
 * Resolves with { port, mgmtPort, connStr, dataDir, stop(), kill(), log() }. stop() sends SIGTERM and
 * waits for the exit (SIGKILL after STOP_TIMEOUT_MS); it resolves with the exit code.
 */
export async function startTernd({ args = [], dataDir, holdFile, tls } = {}) {
  if (!fs.existsSync(terndPath)) {
    throw new Error(`no ternd at ${terndPath}: build it (scripts/build-server.sh) or set TERND`);
  }
  if (holdFile !== undefined && !fs.existsSync(holdFsyncPath)) {
    throw new Error(`no hold_fsync at ${holdFsyncPath}: build its target (hold_fsync) or set HOLD_FSYNC`);
  }
  const own = dataDir === undefined ? tempDataDir() : null;
  const dir = dataDir ?? own.path;
  const mgmtArgs = args.includes('--mgmt-port') ? [] : ['--mgmt-port', '0'];
  const argv = ['--config', configPath, '--port', '0', '--data-dir', dir, ...mgmtArgs, ...extraArgs, ...args];
  const mgmtOn = argv[argv.indexOf('--mgmt-port') + 1] !== 'none';
  const certDir = tls ? testCertificates() : null;
  if (tls) {
    const leaf = tls.leaf ?? 'server';
    argv.push('--tls-port', '0', '--tls-certificate', path.join(certDir, `${leaf}.pem`),
      '--tls-private-key', path.join(certDir, `${leaf}.key`));
    if (!argv.includes('--mgmt-tls-port')) argv.push('--mgmt-tls-port', '0');
  }
  const mgmtTlsOn = tls && argv[argv.indexOf('--mgmt-tls-port') + 1] !== 'none';
  // hold_fsync execs ternd in its own process: the child's signals and exit status are ternd's.
  const child = holdFile === undefined
    ? spawn(terndPath, argv, { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(holdFsyncPath, [holdFile, terndPath, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => {
    own?.remove();
    resolve(code ?? signal);
  }));
  let mgmtPort = null;
  let tlsPort = null;
  let mgmtTlsPort = null;
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ternd printed no 'listening on' and 'ternd ready' lines within ${START_TIMEOUT_MS} ms; its output:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk.toString();
      // A persistent bucket answers Etmpfail until warm: wait for "ternd ready" too.
      const m = /ternd \S+ listening on 127\.0\.0\.1:(\d+)/.exec(output);
      const mgmt = /management port listening on 127\.0\.0\.1:(\d+)/.exec(output);
      const kvTls = /TLS listening on 127\.0\.0\.1:(\d+)/.exec(output);
      const mgmtTls = /management TLS port listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (m && (mgmt || !mgmtOn) && (kvTls || !tls) && (mgmtTls || !mgmtTlsOn) && output.includes('ternd ready')) {
        clearTimeout(timer);
        // From here the draining listeners below keep the output (once each line).
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        mgmtPort = mgmt ? Number(mgmt[1]) : null;
        tlsPort = kvTls ? Number(kvTls[1]) : null;
        mgmtTlsPort = mgmtTls ? Number(mgmtTls[1]) : null;
        resolve(Number(m[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (err) => { clearTimeout(timer); own?.remove(); reject(err); });
    exited.then((code) => { clearTimeout(timer); reject(new Error(`ternd exited (${code}) before listening; its output:\n${output}`)); });
  });
  // Keep draining its output so that it never blocks on a full pipe.
  child.stdout.on('data', (c) => { output += c.toString(); });
  child.stderr.on('data', (c) => { output += c.toString(); });
  let stopping;
  const stopWith = (signal) => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      const code = await exited;
      clearTimeout(timer);
      return code;
    })();
    return stopping;
  };
  return {
    port,
    mgmtPort,
    pid: child.pid,
    dataDir: dir,
    connStr: `couchbase://127.0.0.1:${port}`,
    ...(tls ? {
      tlsPort,
      mgmtTlsPort,
      certDir,
      caPath: path.join(certDir, tls.leaf === 'other' ? 'other-ca.pem' : 'ca.pem'),
      tlsConnStr: `couchbases://127.0.0.1:${tlsPort}`,
    } : {}),
    log: () => output,
    stop: () => stopWith('SIGTERM'),
    kill: () => stopWith('SIGKILL'),
  };
}

let certificates = null;

/**
 * The directory of scripts/test-certs.sh's certificates (ca.pem, server.pem/.key,
 * other-ca.pem, ...; see its header), made once per test process into a temporary directory
 * that is removed when the process exits: nothing secret in git.
 */
export function testCertificates() {
  if (certificates) return certificates;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tern-compat-certs-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const made = spawnSync('bash', [path.join(repoRoot, 'scripts', 'test-certs.sh'), dir], { encoding: 'utf8' });
  if (made.status !== 0) {
    throw new Error(`scripts/test-certs.sh failed (${made.status ?? made.error}): ${made.stderr}`);
  }
  certificates = dir;
  return dir;
}

/**
 * Stops a ternd from startTernd (if any) with SIGTERM and asserts that it exited with status 0:
 * a crash or a hang on the way out fails the test, with ternd's log in the message.
 */
export async function stopCleanly(ternd) {
  if (!ternd) return;
  const code = await ternd.stop();
  assert.equal(code, 0, `ternd must exit with status 0 on SIGTERM, not ${code}; its log:\n${ternd.log()}`);
}

/** Runs a command; resolves with { code, stdout, stderr } (never rejects on a non-zero exit). */
export function run(file, args, { env = {}, timeoutMs = 120000 } = {}) {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: repoRoot, env: { ...process.env, ...env }, timeout: timeoutMs, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
  });
}

/**
 * Starts an N-node cluster with scripts/cluster.sh in a private directory, on ports above a
 * random base. Resolves with { ports, connStr, dir, down() }.
 */
export async function clusterUp(n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tern-compat-cluster-'));
  const basePort = 20000 + Math.floor(Math.random() * 20000);
  const env = { CLUSTER_DIR: dir, BASE_PORT: String(basePort), TERND: terndPath, TERND_CONFIG: configPath };
  const up = await run('bash', [clusterScript, 'up', String(n)], { env });
  const down = async () => {
    const r = await run('bash', [clusterScript, 'down'], { env });
    if (r.code === 0) fs.rmSync(dir, { recursive: true, force: true });
    return r;
  };
  if (up.code !== 0) {
    const logs = readLogs(dir);
    await down();
    throw new Error(`cluster.sh up ${n} failed (${up.code}):\n${up.stdout}\n${up.stderr}\n${logs}`);
  }
  const ports = fs.readFileSync(path.join(dir, 'ports'), 'utf8').trim().split(/\s+/).map(Number);
  const m = /couchbase:\/\/\S+/.exec(up.stdout);
  return { ports, connStr: m ? m[0] : null, dir, stdout: up.stdout, down, logs: () => readLogs(dir) };
}

function readLogs(dir) {
  let out = '';
  try {
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.log')).sort()) {
      out += `--- ${f}\n${fs.readFileSync(path.join(dir, f), 'utf8').split('\n').slice(-40).join('\n')}\n`;
    }
  } catch { /* the directory is gone */ }
  return out;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls fn() until it returns a truthy value; rejects after timeoutMs with `what`. */
export async function eventually(what, fn, { timeoutMs = 30000, intervalMs = 250 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not so within ${timeoutMs} ms${last ? ` (last error: ${last.message})` : ''}`);
    }
    await sleep(intervalMs);
  }
}

/** Resolves with the error that promise rejects with; fails when it resolves. */
export async function rejection(promise, what) {
  try {
    const value = await promise;
    throw Object.assign(new Error(`${what}: expected an error, got success`), { value, expectedFailure: true });
  } catch (err) {
    if (err && err.expectedFailure) throw err;
    return err;
  }
}

/** Time the promise takes, with its outcome: { ms, value } or { ms, error }. */
export async function timed(promise) {
  const start = Date.now();
  try {
    const value = await promise;
    return { ms: Date.now() - start, value };
  } catch (error) {
    return { ms: Date.now() - start, error };
  }
}

/**
 * The error `promise` fails with, awaited at most `boundMs`: { ms, error }, with an error of its
 * own ("no failure within ...") when it succeeds or takes longer, so that a test awaiting a
 * refusal never hangs.
 */
export async function failureWithin(promise, boundMs) {
  let timer;
  const bound = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no failure within ${boundMs} ms`)), boundMs);
  });
  const succeeded = promise.then(() => { throw new Error('no failure: it succeeded'); });
  return timed(Promise.race([succeeded, bound]).finally(() => clearTimeout(timer)));
}

/**
 * The official SDK connected to `ternd` as USER, with `timeouts`, and the bucket BUCKET once
 * its KV service is ready: { cluster, bucket }. Close the cluster when done.
 */
export async function connectReady(ternd, timeouts, readyTimeoutMs = 20000) {
  const cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts });
  const bucket = cluster.bucket(BUCKET);
  await bucket.waitUntilReady(readyTimeoutMs, { serviceTypes: [couchbase.ServiceType.KeyValue] });
  return { cluster, bucket };
}

/**
 * A test file's ternd and SDK connection: registers the hooks that start a ternd (with `args`)
 * and connect (connectReady) before the file's tests, and close and stop both after them.
 * Returns the object the hooks fill in: { ternd, cluster, bucket, coll } (coll: the default
 * collection).
 */
export function terndForTests({ timeouts, args = [] } = {}) {
  const fixture = {};
  before(async () => {
    fixture.ternd = await startTernd({ args });
    Object.assign(fixture, await connectReady(fixture.ternd, timeouts));
    fixture.coll = fixture.bucket.defaultCollection();
  });
  after(async () => {
    await fixture.cluster?.close();
    await stopCleanly(fixture.ternd);
  });
  return fixture;
}

/** A short description of a Couchbase error, for assertion messages. */
export function describeError(err) {
  if (!err) return String(err);
  const ctx = err.context ? ` context=${JSON.stringify(err.context)}` : '';
  const cause = err.cause ? ` cause=${JSON.stringify(err.cause)}` : '';
  return `${err.constructor?.name}: ${err.message}${ctx}${cause}`;
}

/** Runs jobs with at most `limit` in flight; resolves with their results in order. */
export async function pool(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  });
  await Promise.all(workers);
  return results;
}
