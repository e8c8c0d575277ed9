// The official Couchbase Node.js SDK (npm couchbase, on Couchbase's C++ core) against one real
// ternd over couchbases://: ternd serves certificates from scripts/test-certs.sh, the SDK
// trusts their CA through security.trustStorePath, and the KV scenario (CAS, a durable write,
// sub-document lookupIn and mutateIn) runs over TLS only; the bucket manager reaches the
// management port over HTTPS. Trusting another CA, the SDK cannot connect, within a bound.
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import couchbase from 'couchbase';
import {
  startTernd, stopCleanly, rejection, failureWithin, describeError, USER, PASSWORD, BUCKET,
} from '../lib/ternd.mjs';

const {
  CasMismatchError, DocumentNotFoundError, DurabilityLevel, LookupInSpec, MutateInSpec, ServiceType,
} = couchbase;

// Generous for a busy two-core machine.
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 20000;
// With an untrusted certificate the SDK retries the handshake until its bootstrap timeout:
// short, as only the failure is awaited (ternd's log says why it failed); the test's own
// bound keeps it from ever hanging.
const UNTRUSTED_TIMEOUTS = { kvTimeout: 2000, connectTimeout: 2000, bootstrapTimeout: 2000 };
const FAILURE_BOUND_MS = 30000;
const UNKNOWN_CA = /TLS connection from \S+ ended: TLS handshake failed: .*unknown ca/g;
const RUN = `${process.pid}-${Date.now().toString(36)}`;

let ternd;
let cluster;
let coll;

before(async () => {
  // No plain management port: the bucket manager can only have reached the HTTPS one.
  ternd = await startTernd({ tls: true, args: ['--mgmt-port', 'none'] });
  assert.equal(ternd.mgmtPort, null);
  assert.ok(ternd.mgmtTlsPort);
  cluster = await couchbase.connect(ternd.tlsConnStr, {
    username: USER, password: PASSWORD, timeouts: TIMEOUTS, security: { trustStorePath: ternd.caPath },
  });
  coll = cluster.bucket(BUCKET).defaultCollection();
});

after(async () => {
  await cluster?.close();
  await stopCleanly(ternd);
});

/**
 * The established server-side TCP connections of ternd's port `port`, from /proc/net/tcp
 * (the test and ternd share the network namespace; the port is ternd's own).
 */
function establishedTo(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length > 3 && f[1].endsWith(`:${hex}`) && f[3] === '01') n++;
    }
  }
  return n;
}

it('over couchbases:// the bucket is ready on KV, through the TLS port only', async () => {
  await cluster.bucket(BUCKET).waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
  await coll.upsert(`probe-${RUN}`, { v: 1 });
  assert.ok(establishedTo(ternd.tlsPort) > 0, 'the SDK holds connections to the TLS port');
  assert.equal(establishedTo(ternd.port), 0, 'and none to the plain KV port');
});

it('upsert, get, replace with CAS and remove over TLS', async () => {
  const k = `kv-${RUN}`;
  const doc = { name: 'Ada', langs: ['en', 'fr'], nested: { ok: true } };
  const first = await coll.upsert(k, doc);
  const got = await coll.get(k);
  assert.deepEqual(got.content, doc);
  assert.equal(got.cas.toString(), first.cas.toString());
  const second = await coll.upsert(k, { name: 'Grace' });
  const stale = await rejection(coll.replace(k, { v: 3 }, { cas: first.cas }), 'replace with a stale CAS');
  assert.ok(stale instanceof CasMismatchError, describeError(stale));
  const third = await coll.replace(k, { v: 4 }, { cas: second.cas });
  assert.notEqual(third.cas.toString(), second.cas.toString());
  assert.deepEqual((await coll.get(k)).content, { v: 4 });
  await coll.remove(k);
  const gone = await rejection(coll.get(k), 'get after remove');
  assert.ok(gone instanceof DocumentNotFoundError, describeError(gone));
});

it('a durable write (Majority) over TLS', async () => {
  const k = `durable-${RUN}`;
  const up = await coll.upsert(k, { v: 'durable' }, { durabilityLevel: DurabilityLevel.Majority });
  assert.ok(up.cas);
  assert.deepEqual((await coll.get(k)).content, { v: 'durable' });
  await coll.remove(k, { durabilityLevel: DurabilityLevel.Majority });
  const gone = await rejection(coll.get(k), 'get after a durable remove');
  assert.ok(gone instanceof DocumentNotFoundError, describeError(gone));
});

it('sub-document lookupIn and mutateIn over TLS', async () => {
  const k = `subdoc-${RUN}`;
  await coll.upsert(k, { name: 'Ada', address: { city: 'London' }, langs: ['en', 'fr'] });
  const mutated = await coll.mutateIn(k, [
    MutateInSpec.upsert('address.geo.lat', 51.5, { createPath: true }),
    MutateInSpec.arrayAppend('langs', 'de'),
  ]);
  assert.ok(mutated.cas);
  const res = await coll.lookupIn(k, [
    LookupInSpec.get('address.city'),
    LookupInSpec.get('address.geo.lat'),
    LookupInSpec.count('langs'),
    LookupInSpec.exists('nowhere'),
  ]);
  assert.equal(res.content[0].value, 'London');
  assert.equal(res.content[1].value, 51.5);
  assert.equal(res.content[2].value, 3);
  assert.equal(res.content[3].value, false);
  assert.equal(res.cas.toString(), mutated.cas.toString());
});

it('the bucket manager over couchbases:// reaches the management port over HTTPS (mgmtSSL)', async () => {
  const settings = await cluster.buckets().getBucket(BUCKET);
  assert.equal(settings.name, BUCKET);
});

it('trusting another CA, the SDK cannot connect (or its first operation fails), within a bound', async () => {
  const otherCa = path.join(ternd.certDir, 'other-ca.pem');
  const refusedBefore = ternd.log().match(UNKNOWN_CA)?.length ?? 0;
  const attempt = (async () => {
    const untrusted = await couchbase.connect(ternd.tlsConnStr, {
      username: USER, password: PASSWORD, timeouts: UNTRUSTED_TIMEOUTS, security: { trustStorePath: otherCa },
    });
    try {
      await untrusted.bucket(BUCKET).defaultCollection().upsert(`untrusted-${RUN}`, { v: 1 });
    } finally {
      await untrusted.close();
    }
  })();
  const { ms, error } = await failureWithin(attempt, FAILURE_BOUND_MS);
  assert.ok(error instanceof couchbase.CouchbaseError, `took ${ms} ms: ${describeError(error)}`);
  // It failed because the SDK refused ternd's certificate: ternd heard its alert.
  const refused = (ternd.log().match(UNKNOWN_CA)?.length ?? 0) - refusedBefore;
  assert.ok(refused > 0, `ternd's log names the SDK's "unknown ca" alert; its log:\n${ternd.log()}`);
  // Nothing was written through it.
  const absent = await rejection(coll.get(`untrusted-${RUN}`), 'get of the untrusted write');
  assert.ok(absent instanceof DocumentNotFoundError, describeError(absent));
});
