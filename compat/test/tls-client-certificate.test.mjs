// The official Couchbase Node.js SDK logging in to ternd with a client certificate (mutual
// TLS): ternd trusts scripts/test-certs.sh's client CA ([tls] client_ca) with client_auth
// "enabled", and the SDK's CertificateAuthenticator presents a certificate whose CN names a
// user. That user's KV work runs, with no password sent. A certificate whose CN names no user
// is refused, and ternd's log names its subject.
import { it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import couchbase from 'couchbase';
import {
  startTernd, stopCleanly, testCertificates, failureWithin, describeError, BUCKET,
} from '../lib/ternd.mjs';

const { DocumentNotFoundError, ServiceType } = couchbase;

// Generous for a busy two-core machine.
const TIMEOUTS = { kvTimeout: 10000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const READY_TIMEOUT_MS = 20000;
// A refused certificate is retried by the SDK until its bootstrap timeout: short, as only the
// failure is awaited; the test's own bound keeps it from ever hanging.
const REFUSED_TIMEOUTS = { kvTimeout: 2000, connectTimeout: 2000, bootstrapTimeout: 2000 };
const FAILURE_BOUND_MS = 30000;
const RUN = `${process.pid}-${Date.now().toString(36)}`;

let ternd;
let certs;

before(async () => {
  certs = testCertificates();
  ternd = await startTernd({
    tls: true,
    args: ['--tls-client-ca', path.join(certs, 'client-ca.pem'), '--tls-client-auth', 'enabled'],
  });
});

after(async () => {
  await stopCleanly(ternd);
});

/** Connects over couchbases:// as the user that client certificate `name` names. */
function connectAs(name, timeouts) {
  return couchbase.connect(ternd.tlsConnStr, {
    authenticator: new couchbase.CertificateAuthenticator(
      path.join(certs, `${name}.pem`), path.join(certs, `${name}.key`)),
    timeouts,
    security: { trustStorePath: ternd.caPath },
  });
}

it('a client certificate naming Administrator logs in, and its KV work runs', async () => {
  const cluster = await connectAs('client-admin', TIMEOUTS);
  try {
    await cluster.bucket(BUCKET).waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
    const coll = cluster.bucket(BUCKET).defaultCollection();
    const k = `mtls-${RUN}`;
    await coll.upsert(k, { by: 'certificate' });
    assert.deepEqual((await coll.get(k)).content, { by: 'certificate' });
    await coll.remove(k);
    await assert.rejects(coll.get(k), DocumentNotFoundError);
  } finally {
    await cluster.close();
  }
  // The login was the certificate's.
  assert.match(ternd.log(), /authenticated as Administrator by client certificate/);
});

it('a client certificate naming no user is refused, and the log names its subject', async () => {
  const attempt = (async () => {
    const cluster = await connectAs('client-nobody', REFUSED_TIMEOUTS);
    try {
      await cluster.bucket(BUCKET).defaultCollection().upsert(`nobody-${RUN}`, { v: 1 });
    } finally {
      await cluster.close();
    }
  })();
  const { ms, error } = await failureWithin(attempt, FAILURE_BOUND_MS);
  assert.ok(error instanceof couchbase.CouchbaseError, `took ${ms} ms: ${describeError(error)}`);
  assert.match(ternd.log(), /client certificate '[^']*CN ?= ?nobody[^']*' names no user/);
});
