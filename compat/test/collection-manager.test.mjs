// The official Couchbase Node.js SDK's collection manager (bucket.collections()) against a real
// ternd's management port: every call with its typed errors, and live changes as a cluster
// makes them: a collection created over HTTP is usable at once by a cluster object connected
// before it existed, with no reconnect; once dropped it answers CollectionNotFound; made again
// under the same name it is a new, empty collection.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import { rejection, timed, describeError, BUCKET } from '../lib/ternd.mjs';
import { connectManaged, managedTernd, scopesOf } from '../lib/management.mjs';

const {
  ScopeExistsError, ScopeNotFoundError, CollectionExistsError, CollectionNotFoundError,
  DocumentNotFoundError, InvalidArgumentError,
} = couchbase;

const RUN = `${process.pid}-${Date.now().toString(36)}`;
// An operation on a dropped collection must fail well within this (the SDK refreshes the
// collection id once, then gives up; the bound is generous for a busy machine).
const FAILURE_BOUND_MS = 20000;

describe('ternd\'s scopes and collections through the SDK', () => {
  const env = managedTernd();
  let manager;

  before(() => { manager = env.cluster.bucket(BUCKET).collections(); });

  describe('collection manager', () => {
    it('getAllScopes reads the configured scopes and collections', async () => {
      // dev.toml: the default scope and collection, and app with users and orders.
      assert.deepEqual(scopesOf(await manager.getAllScopes()), {
        _default: { _default: 0 },
        app: { users: 0, orders: 0 },
      });
      const app = (await manager.getAllScopes()).find((s) => s.name === 'app');
      assert.deepEqual(app.collections.map((c) => c.scopeName), ['app', 'app']);
    });

    it('createScope and createCollection (with and without maxExpiry) show in getAllScopes', async () => {
      await manager.createScope('sales');
      await manager.createCollection('leads', 'sales');
      await manager.createCollection('quotes', 'sales', { maxExpiry: 3600 });
      const scopes = scopesOf(await manager.getAllScopes());
      assert.deepEqual(scopes.sales, { leads: 0, quotes: 3600 });
      assert.deepEqual(scopes.app, { users: 0, orders: 0 }, 'the other scopes are untouched');
    });

    it('a scope that exists: createScope answers ScopeExistsError', async () => {
      await manager.createScope('twice');
      const err = await rejection(manager.createScope('twice'), 'createScope twice');
      assert.ok(err instanceof ScopeExistsError, describeError(err));
    });

    it('a collection that exists: createCollection answers CollectionExistsError', async () => {
      const err = await rejection(manager.createCollection('users', 'app'), 'create app.users again');
      assert.ok(err instanceof CollectionExistsError, describeError(err));
    });

    it('an unknown scope: createCollection, dropCollection and dropScope answer ScopeNotFoundError', async () => {
      const calls = {
        createCollection: () => manager.createCollection('c', 'no-such-scope'),
        dropCollection: () => manager.dropCollection('c', 'no-such-scope'),
        dropScope: () => manager.dropScope('no-such-scope'),
      };
      for (const [name, call] of Object.entries(calls)) {
        const err = await rejection(call(), name);
        assert.ok(err instanceof ScopeNotFoundError, `${name}: ${describeError(err)}`);
      }
    });

    it('an unknown collection: dropCollection answers CollectionNotFoundError', async () => {
      const err = await rejection(manager.dropCollection('no-such-collection', 'app'), 'drop unknown');
      assert.ok(err instanceof CollectionNotFoundError, describeError(err));
    });

    it('a bad name is refused by ternd: InvalidArgumentError with Couchbase\'s message', async () => {
      for (const [name, call] of Object.entries({
        createScope: () => manager.createScope('_reserved'),
        createCollection: () => manager.createCollection('has space', 'app'),
      })) {
        const err = await rejection(call(), name);
        assert.ok(err instanceof InvalidArgumentError, `${name}: ${describeError(err)}`);
        // ternd's refusal, not the SDK's own check.
        assert.equal(err.context?.response_code, 400, `${name}: ${describeError(err)}`);
        assert.match(err.context.response_body, /"name":"Can only contain alphanumeric characters/);
      }
      assert.ok(!('_reserved' in scopesOf(await manager.getAllScopes())), 'no scope was made');
    });

    it('dropCollection and dropScope remove them from getAllScopes', async () => {
      await manager.createScope('brief');
      await manager.createCollection('one', 'brief');
      await manager.createCollection('two', 'brief');
      await manager.dropCollection('one', 'brief');
      assert.deepEqual(scopesOf(await manager.getAllScopes()).brief, { two: 0 });
      await manager.dropScope('brief');
      assert.ok(!('brief' in scopesOf(await manager.getAllScopes())), 'scope dropped with its collection');
      const err = await rejection(manager.dropCollection('two', 'brief'), 'drop in a dropped scope');
      assert.ok(err instanceof ScopeNotFoundError, describeError(err));
    });
  });

  describe('live collections seen by a cluster object connected before the change', () => {
    let watcher;
    let live;

    before(async () => {
      // Connected, with the bucket open and used, before the collection exists.
      watcher = await connectManaged(env.ternd);
      await watcher.bucket(BUCKET).defaultCollection().upsert(`before-${RUN}`, { at: 'start' });
      await manager.createScope('live');
      live = watcher.bucket(BUCKET).scope('live').collection('fresh');
    });

    after(async () => { await watcher?.close(); });

    it('a collection created over HTTP is usable at once, with no reconnect', async () => {
      await manager.createCollection('fresh', 'live');
      const up = await live.upsert(`k-${RUN}`, { generation: 1 });
      const got = await live.get(`k-${RUN}`);
      assert.deepEqual(got.content, { generation: 1 });
      assert.equal(got.cas.toString(), up.cas.toString());
      // The document is in the new collection only.
      const err = await rejection(watcher.bucket(BUCKET).defaultCollection().get(`k-${RUN}`), 'same key in _default');
      assert.ok(err instanceof DocumentNotFoundError, describeError(err));
    });

    it('once dropped, its reads and writes answer CollectionNotFoundError', async () => {
      await manager.dropCollection('fresh', 'live');
      for (const [name, op] of [
        ['get', () => live.get(`k-${RUN}`)],
        ['upsert', () => live.upsert(`k2-${RUN}`, { generation: 1 })],
      ]) {
        const { ms, error } = await timed(op());
        assert.ok(error instanceof CollectionNotFoundError, `${name}: ${describeError(error)}`);
        assert.ok(ms < FAILURE_BOUND_MS, `${name} took ${ms} ms`);
      }
    });

    it('made again under the same name, it is a new, empty collection', async () => {
      await manager.createCollection('fresh', 'live');
      const err = await rejection(live.get(`k-${RUN}`), 'the old document');
      assert.ok(err instanceof DocumentNotFoundError, describeError(err));
      await live.insert(`k-${RUN}`, { generation: 2 });
      assert.deepEqual((await live.get(`k-${RUN}`)).content, { generation: 2 });
    });
  });
});
