// The official Couchbase Node.js SDK's replica reads against one real ternd, whose buckets have
// no replicas (as a Couchbase bucket with numReplicas 0): getAnyReplica, getAllReplicas,
// lookupInAnyReplica and lookupInAllReplicas read the active copy. The lookupIn ones need the
// bucket to list "subdoc.ReplicaRead"; without it the SDK answers "feature not available".
import { it } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { terndForTests, rejection, describeError } from '../lib/ternd.mjs';

const { LookupInSpec, DocumentUnretrievableError, DocumentNotFoundError } = couchbase;

// Generous for a busy two-core machine.
const TIMEOUTS = { kvTimeout: 10000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const RUN = `${process.pid}-${Date.now().toString(36)}`;

const servers = terndForTests({ timeouts: TIMEOUTS });

const doc = { name: 'Ada', address: { city: 'London' } };

it('getAnyReplica and getAllReplicas read the active copy', async () => {
  const k = `replica-get-${RUN}`;
  const written = await servers.coll.upsert(k, doc);
  const any = await servers.coll.getAnyReplica(k);
  assert.deepEqual(any.content, doc);
  assert.equal(any.isReplica, false);
  assert.equal(any.cas.toString(), written.cas.toString());
  const all = await servers.coll.getAllReplicas(k);
  assert.equal(all.length, 1);
  assert.deepEqual(all[0].content, doc);
  assert.equal(all[0].isReplica, false);
});

it('lookupInAnyReplica and lookupInAllReplicas read the active copy', async () => {
  const k = `replica-lookup-${RUN}`;
  const written = await servers.coll.upsert(k, doc);
  const specs = [LookupInSpec.get('address.city'), LookupInSpec.exists('nowhere')];
  const any = await servers.coll.lookupInAnyReplica(k, specs);
  assert.equal(any.content[0].value, 'London');
  assert.equal(any.content[1].value, false);
  assert.equal(any.isReplica, false);
  assert.equal(any.cas.toString(), written.cas.toString());
  const all = await servers.coll.lookupInAllReplicas(k, specs);
  assert.equal(all.length, 1);
  assert.equal(all[0].content[0].value, 'London');
  assert.equal(all[0].isReplica, false);
});

it('a missing document is unretrievable from any replica', async () => {
  const k = `replica-missing-${RUN}`;
  for (const attempt of [servers.coll.getAnyReplica(k), servers.coll.lookupInAnyReplica(k, [LookupInSpec.get('a')])]) {
    const error = await rejection(attempt, 'a replica read of a missing document');
    assert.ok(error instanceof DocumentUnretrievableError || error instanceof DocumentNotFoundError,
      describeError(error));
  }
});
