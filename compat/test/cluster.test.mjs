// The official Couchbase Node.js SDK against three ternd nodes from scripts/cluster.sh:
// each node serves only its own vbuckets (its stats and its NotMyVbucket answers show it),
// then vbuckets move from node 0 to node 1 while the SDK keeps writing: no operation fails,
// and every write made after the move reads back.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import couchbase from 'couchbase';
import {
  withAdmin, vbucketOf, evenOwners, installMap, Opcode, Status, NUM_VBUCKETS,
} from '../../scripts/cluster-admin.mjs';
import { clusterUp, describeError, pool, USER, PASSWORD, BUCKET } from '../lib/ternd.mjs';

const NODES = 3;
const TIMEOUTS = { kvTimeout: 10000, kvDurableTimeout: 15000, connectTimeout: 10000, bootstrapTimeout: 20000 };
const RUN = `${process.pid}-${Date.now().toString(36)}`;
const admin = { user: USER, password: PASSWORD, bucket: BUCKET };

let nodes;
let cluster;
let coll;

before(async () => {
  nodes = await clusterUp(NODES);
  cluster = await couchbase.connect(nodes.connStr ?? `couchbase://127.0.0.1:${nodes.ports[0]}`,
    { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  const bucket = cluster.bucket(BUCKET);
  await bucket.waitUntilReady(20000, { serviceTypes: [couchbase.ServiceType.KeyValue] });
  coll = bucket.defaultCollection();
});

after(async () => {
  await cluster?.close();
  if (nodes) {
    const down = await nodes.down();
    assert.equal(down.code, 0, `cluster.sh down: ${down.stdout}${down.stderr}`);
  }
});

/** A raw GET of key (default collection) on one node, in the key's vbucket: the answer frame. */
function rawGet(port, key) {
  return withAdmin({ ...admin, port }, (c) => c.request({ opcode: Opcode.Get, key, vbucket: vbucketOf(key) }));
}

/** The bucket's counters on one node (STAT after SELECT_BUCKET): curr_items and cmd_set. */
async function counters(port) {
  const stats = await withAdmin({ ...admin, port }, (c) => c.stats());
  for (const name of ['curr_items', 'cmd_set']) {
    assert.ok(name in stats, `node ${port} STAT has no ${name}: ${Object.keys(stats).join(' ')}`);
  }
  return { items: Number(stats.curr_items), sets: Number(stats.cmd_set) };
}

describe(`a ${NODES}-node cluster`, () => {
  it('cluster.sh printed the connection string, and every node holds the even map', async () => {
    assert.equal(nodes.connStr, `couchbase://${nodes.ports.map((p) => `127.0.0.1:${p}`).join(',')}`);
    assert.match(nodes.stdout, /Administrator/);
    const owners = evenOwners(NODES);
    const maps = await Promise.all(nodes.ports.map((port) => withAdmin({ ...admin, port }, (c) => c.getClusterConfig())));
    maps.forEach((m, i) => {
      assert.equal(m.rev, maps[0].rev, 'every node has the same rev');
      assert.deepEqual(m.vBucketServerMap.vBucketMap.map((e) => e[0]), owners);
      assert.deepEqual(m.vBucketServerMap.serverList, nodes.ports.map((p) => `127.0.0.1:${p}`));
      assert.deepEqual(m.nodesExt.map((n) => n.services.kv), nodes.ports);
      assert.deepEqual(m.nodesExt.map((n) => n.thisNode === true), nodes.ports.map((_, j) => j === i));
    });
  });

  it('each node serves only its own vbuckets', async () => {
    const owners = evenOwners(NODES);
    const before = await Promise.all(nodes.ports.map(counters));
    const keys = Array.from({ length: 600 }, (_, i) => `own-${RUN}-${i}`);
    const results = await pool(keys, 64, (k, i) => coll.upsert(k, { i }).then(() => null, (err) => err));
    const failures = results.filter(Boolean);
    assert.equal(failures.length, 0, `failed upserts: ${failures.slice(0, 3).map(describeError).join('; ')}`);

    const expected = nodes.ports.map(() => 0);
    for (const k of keys) expected[owners[vbucketOf(k)]]++;
    const after = await Promise.all(nodes.ports.map(counters));
    const items = after.map((c, i) => c.items - before[i].items);
    assert.deepEqual(items, expected, `per-node new items ${items}, by the map ${expected}`);
    // Each upsert reached its owner once, and no other node.
    const sets = after.map((c, i) => c.sets - before[i].sets);
    assert.deepEqual(sets, expected, `per-node sets ${sets}, by the map ${expected}`);
    assert.ok(expected.every((n) => n > 100), 'the keys spread over every node');

    // The owner answers a key; every other node answers NotMyVbucket with a map in the body.
    for (const k of keys.slice(0, 6)) {
      const owner = owners[vbucketOf(k)];
      for (let i = 0; i < NODES; i++) {
        const frame = await rawGet(nodes.ports[i], k);
        if (i === owner) {
          assert.equal(frame.status, Status.Success, `node ${i} GET ${k} (vb ${vbucketOf(k)}): 0x${frame.status.toString(16)}`);
          assert.deepEqual(JSON.parse(frame.value.toString()), { i: keys.indexOf(k) });
        } else {
          assert.equal(frame.status, Status.NotMyVbucket, `node ${i} GET ${k} (vb ${vbucketOf(k)}): 0x${frame.status.toString(16)}`);
          const map = JSON.parse(frame.value.toString());
          assert.equal(map.vBucketServerMap.vBucketMap.length, NUM_VBUCKETS);
        }
      }
    }
  });

  it('vbuckets move mid-run: no failed operation, and every write after the move reads back', async () => {
    const previousOwners = evenOwners(NODES);
    const moved = new Set(Array.from({ length: 120 }, (_, i) => i)); // node 0's first 120 vbuckets
    assert.ok([...moved].every((vb) => previousOwners[vb] === 0));
    const owners = previousOwners.map((o, vb) => (moved.has(vb) ? 1 : o));

    // Half of the writes go to moved vbuckets, so that the move matters to many of them.
    let seq = 0;
    const nextKey = () => {
      const wantMoved = seq % 2 === 0;
      for (;;) {
        const k = `move-${RUN}-${seq++}`;
        if (moved.has(vbucketOf(k)) === wantMoved) return k;
      }
    };

    let phase = 'before'; // 'before' the move resolved, 'after' it
    let moveResult;
    const writes = [];
    const failures = [];
    let afterCount = 0;
    let stop = false;
    const writer = async () => {
      while (!stop) {
        const k = nextKey();
        const started = phase;
        const value = { k, started };
        try {
          await coll.upsert(k, value);
          writes.push({ k, value, started });
          if (started === 'after') afterCount++;
        } catch (err) {
          failures.push(`${k} (${started}): ${describeError(err)}`);
        }
      }
    };
    const writers = Array.from({ length: 16 }, writer);

    const waitFor = async (cond, what, ms = 60000) => {
      const deadline = Date.now() + ms;
      while (!cond()) {
        if (Date.now() > deadline || failures.length) return false;
        await new Promise((r) => setTimeout(r, 20));
      }
      return true;
    };
    try {
      assert.ok(await waitFor(() => writes.length >= 300), `300 writes before the move (${writes.length}, ${failures[0]})`);
      moveResult = await installMap({ ...admin, ports: nodes.ports, owners, previousOwners });
      phase = 'after';
      // Keep writing: at least 600 writes begun after the move, and 3 s, so that the SDK meets
      // NotMyVbucket answers and its own config poll alike.
      const movedAt = Date.now();
      assert.ok(await waitFor(() => afterCount >= 600 && Date.now() - movedAt >= 3000),
        `600 writes after the move (${afterCount}, ${failures[0]})`);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    assert.deepEqual(failures, [], 'no operation failed');

    // Every node now has the new map.
    const maps = await Promise.all(nodes.ports.map((port) => withAdmin({ ...admin, port }, (c) => c.getClusterConfig())));
    for (const m of maps) {
      assert.equal(m.rev, moveResult.rev);
      assert.deepEqual(m.vBucketServerMap.vBucketMap.map((e) => e[0]), owners);
    }

    // Every write made after the move reads back through the SDK.
    const later = writes.filter((w) => w.started === 'after');
    const reads = await pool(later, 64, (w) => coll.get(w.k).then((r) => r.content, (err) => err));
    const bad = [];
    reads.forEach((content, i) => {
      if (content instanceof Error) bad.push(`${later[i].k}: ${describeError(content)}`);
      else if (JSON.stringify(content) !== JSON.stringify(later[i].value)) bad.push(`${later[i].k}: ${JSON.stringify(content)}`);
    });
    assert.deepEqual(bad.slice(0, 5), [], `${bad.length} of ${later.length} later writes do not read back`);

    // And a later write to a moved vbucket lives on node 1; node 0 answers NotMyVbucket for it.
    const laterMoved = later.filter((w) => moved.has(vbucketOf(w.k)));
    assert.ok(laterMoved.length >= 100, `${laterMoved.length} later writes to moved vbuckets`);
    for (const w of laterMoved.slice(0, 5)) {
      const on1 = await rawGet(nodes.ports[1], w.k);
      assert.equal(on1.status, Status.Success, `node 1 GET ${w.k}: 0x${on1.status.toString(16)}`);
      assert.deepEqual(JSON.parse(on1.value.toString()), w.value);
      const on0 = await rawGet(nodes.ports[0], w.k);
      assert.equal(on0.status, Status.NotMyVbucket, `node 0 GET ${w.k}: 0x${on0.status.toString(16)}`);
    }
  });
});
