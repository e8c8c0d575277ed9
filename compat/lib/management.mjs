// Helpers for the management-port tests: a cluster object of the official Node.js SDK whose
// bucket and collection managers are usable, and the settings a bucket manager reads back.
import { before, after } from 'node:test';
import couchbase from 'couchbase';
import { startTernd, stopCleanly, eventually, USER, PASSWORD, BUCKET } from './ternd.mjs';

const { ServiceNotAvailableError, ServiceType } = couchbase;

// Generous for a busy two-core machine.
export const TIMEOUTS = {
  kvTimeout: 10000, kvDurableTimeout: 15000, managementTimeout: 30000, connectTimeout: 10000,
  bootstrapTimeout: 20000,
};
export const READY_TIMEOUT_MS = 30000;

/**
 * Connects to ternd and makes the cluster object's managers usable. ternd serves no
 * cluster-wide map (GET_CLUSTER_CONFIG without a selected bucket answers NoBucket: no GCCCP),
 * so the SDK's C++ core learns where the management port is only from an open bucket's map:
 * until then every cluster.buckets() call answers ServiceNotAvailable. So this opens `bucket`
 * (default: dev.toml's), waits for its KV service, then for the first getAllBuckets that is
 * not ServiceNotAvailable (the core takes the map a little after the bucket reports ready).
 * Resolves with the cluster.
 */
export async function connectManaged(ternd, { bucket = BUCKET, timeouts = TIMEOUTS } = {}) {
  const cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts });
  try {
    await cluster.bucket(bucket).waitUntilReady(READY_TIMEOUT_MS, { serviceTypes: [ServiceType.KeyValue] });
    await eventually('the SDK finds the management port in the cluster map', async () => {
      try {
        await cluster.buckets().getAllBuckets();
        return true;
      } catch (err) {
        if (err instanceof ServiceNotAvailableError) return false;
        throw err;
      }
    });
    return cluster;
  } catch (err) {
    await cluster.close();
    throw err;
  }
}

/**
 * For the body of a describe block (or a file): a ternd started before its tests, with a
 * cluster object from connectManaged, both stopped after them (ternd with stopCleanly).
 * Returns { ternd, cluster }, filled in once the before hook has run.
 */
export function managedTernd(startOptions) {
  const held = {};
  before(async () => {
    held.ternd = await startTernd(startOptions);
    held.cluster = await connectManaged(held.ternd);
  });
  after(async () => {
    await held.cluster?.close();
    await stopCleanly(held.ternd);
  });
  return held;
}

/** The settings of a BucketSettings the tests compare, as a plain object. */
export function settingsOf(b) {
  return {
    name: b.name,
    bucketType: b.bucketType,
    ramQuotaMB: b.ramQuotaMB,
    numReplicas: b.numReplicas,
    flushEnabled: b.flushEnabled,
    maxExpiry: b.maxExpiry,
    evictionPolicy: b.evictionPolicy,
    minimumDurabilityLevel: b.minimumDurabilityLevel,
  };
}

/** scope name -> { collection name -> maxExpiry }, from CollectionManager.getAllScopes(). */
export function scopesOf(scopes) {
  return Object.fromEntries(scopes.map((s) => [s.name,
    Object.fromEntries(s.collections.map((c) => [c.name, c.maxExpiry]))]));
}
