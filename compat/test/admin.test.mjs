// scripts/cluster-admin.mjs: its framing, SCRAM and map building on their own (no server),
// then its conversation with a real ternd.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
  ScramClient, encodeRequest, decodeFrame, crc32, vbucketOf, evenOwners, buildClusterMap,
  parseVbucketList, connectAdmin, AdminConnection, Opcode, Status, Feature,
} from '../../scripts/cluster-admin.mjs';
import { startTernd, stopCleanly, USER, PASSWORD, BUCKET } from '../lib/ternd.mjs';

describe('cluster-admin offline', () => {
  it('SCRAM-SHA-1 matches the RFC 5802 example', () => {
    const c = new ScramClient({ user: 'user', password: 'pencil', hash: 'sha1', nonce: 'fyko+d2lbbFgONRv9qkxdawL' });
    assert.equal(c.first(), 'n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL');
    const final = c.final('r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096');
    assert.equal(final, 'c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=');
    c.verify('v=rmF9pqV8S7suAoZWja4dJRkFsKQ=');
    assert.throws(() => c.verify('v=rmF9pqV8S7suAoZWja4dJRkFsKQ_'), /server signature/);
  });

  it('SCRAM-SHA-256 matches the RFC 7677 example', () => {
    const c = new ScramClient({ user: 'user', password: 'pencil', hash: 'sha256', nonce: 'rOprNGfwEbeRWgbNEkqO' });
    assert.equal(c.first(), 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    const final = c.final('r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
    assert.equal(final,
      'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    c.verify('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  });

  it('SCRAM refuses a server nonce that does not extend the client one, and e= answers', () => {
    const c = new ScramClient({ user: 'u', password: 'p', hash: 'sha512', nonce: 'abc' });
    c.first();
    assert.throws(() => c.final('r=xyz123,s=AAAA,i=4096'), /does not extend/);
    assert.throws(() => c.final('r=abc123,s=AAAA'), /lacks r, s or i/);
    assert.throws(() => c.verify('e=invalid-proof'), /refused/);
  });

  it('frames round-trip, with the header fields where mcbp.md puts them', () => {
    const buf = encodeRequest({ opcode: Opcode.SetVbucket, key: 'k', extras: Buffer.from([4]), value: 'vv',
      datatype: 1, vbucket: 1023, opaque: 0xdeadbeef, cas: 0x0102030405060708n });
    assert.equal(buf.length, 24 + 1 + 1 + 2);
    assert.equal(buf[0], 0x80);
    assert.equal(buf[1], 0x3d);
    assert.equal(buf.readUInt16BE(2), 1);
    assert.equal(buf[4], 1);
    assert.equal(buf[5], 1);
    assert.equal(buf.readUInt16BE(6), 1023);
    assert.equal(buf.readUInt32BE(8), 4);
    assert.equal(buf.readUInt32BE(12), 0xdeadbeef);
    const { frame, size } = decodeFrame(buf);
    assert.equal(size, buf.length);
    assert.equal(frame.key.toString(), 'k');
    assert.deepEqual([...frame.extras], [4]);
    assert.equal(frame.value.toString(), 'vv');
    assert.equal(frame.cas, 0x0102030405060708n);
    assert.equal(decodeFrame(buf.subarray(0, buf.length - 1)), null);
    // An alt response (magic 0x18): framing extras length in byte 2, key length in byte 3.
    const alt = Buffer.alloc(24 + 3 + 2);
    alt[0] = 0x18; alt[1] = 0x00; alt[2] = 3; alt[3] = 0; alt[4] = 0;
    alt.writeUInt32BE(5, 8);
    alt.set([0x02, 0x12, 0x34], 24);
    alt.write('ok', 27);
    const d = decodeFrame(alt).frame;
    assert.deepEqual([...d.framingExtras], [0x02, 0x12, 0x34]);
    assert.equal(d.value.toString(), 'ok');
  });

  it('crc32 and vbuckets match the standard values', () => {
    assert.equal(crc32('123456789'), 0xcbf43926);
    assert.equal(crc32(''), 0);
    // Expected vbuckets computed apart from this code, by Python's zlib: the SDKs' CRC mapping
    // ((zlib.crc32(key.encode()) >> 16) & 0x7fff) % 1024, the last key by its UTF-8 bytes.
    const expected = { foo: 115, a: 183, hello: 528, 'user::1234': 495, '\u00e9t\u00e9': 209 };
    for (const [key, v] of Object.entries(expected)) assert.equal(vbucketOf(key), v, key);
    assert.equal(vbucketOf('foo', 64), 115 % 64, 'another vbucket count');
  });

  it('evenOwners splits the vbuckets into contiguous equal shares', () => {
    const o = evenOwners(3);
    assert.equal(o.length, 1024);
    assert.equal(o[0], 0);
    assert.equal(o[341], 0);
    assert.equal(o[342], 1);
    assert.equal(o[682], 1);
    assert.equal(o[683], 2);
    assert.equal(o[1023], 2);
    assert.deepEqual(evenOwners(1), new Array(1024).fill(0));
  });

  it('buildClusterMap has the shape official-sdk-compat.md describes', () => {
    const ports = [12000, 12001, 12002];
    const m = buildClusterMap({ ports, thisIndex: 1, rev: 7, revEpoch: 2, uuid: 'a'.repeat(32), manifestUid: '5' });
    assert.equal(m.rev, 7);
    assert.equal(m.revEpoch, 2);
    assert.equal(m.name, 'default');
    assert.equal(m.nodeLocator, 'vbucket');
    assert.equal(m.collectionsManifestUid, '5');
    assert.deepEqual(m.bucketCapabilities, ['cccp', 'nodesExt', 'touch', 'cbhello', 'collections', 'durableWrite']);
    assert.equal(m.nodes.length, 3);
    assert.deepEqual(m.nodes[2], { hostname: '127.0.0.1:8091', ports: { direct: 12002 } });
    assert.equal(m.nodesExt.length, 3);
    m.nodesExt.forEach((n, i) => {
      assert.equal(n.hostname, '127.0.0.1');
      assert.deepEqual(n.services, { kv: ports[i] });
      assert.equal(n.thisNode, i === 1 ? true : undefined);
    });
    assert.equal(m.vBucketServerMap.hashAlgorithm, 'CRC');
    assert.equal(m.vBucketServerMap.numReplicas, 0);
    assert.deepEqual(m.vBucketServerMap.serverList, ['127.0.0.1:12000', '127.0.0.1:12001', '127.0.0.1:12002']);
    assert.equal(m.vBucketServerMap.vBucketMap.length, 1024);
    assert.deepEqual(m.vBucketServerMap.vBucketMap[500], [1]);
    assert.ok(JSON.parse(JSON.stringify(m)));
    assert.throws(() => buildClusterMap({ ports, rev: 1, owners: new Array(1024).fill(3) }), /outside/);
  });

  it('parseVbucketList reads ranges', () => {
    assert.deepEqual(parseVbucketList('3,0-2,2'), [0, 1, 2, 3]);
    assert.throws(() => parseVbucketList('5-1'), /bad vbucket range/);
    assert.throws(() => parseVbucketList('1024'), /bad vbucket range/);
  });

  it('STAT answers are gathered until the empty terminator', async () => {
    // A tiny fake server: answers STAT with two stats and the terminator, in odd-sized chunks.
    const server = net.createServer((sock) => {
      sock.on('data', (req) => {
        const opaque = req.readUInt32BE(12);
        const answer = (k, v) => {
          const h = Buffer.alloc(24);
          h[0] = 0x81; h[1] = 0x10; h.writeUInt16BE(k.length, 2);
          h.writeUInt32BE(k.length + v.length, 8); h.writeUInt32BE(opaque, 12);
          return Buffer.concat([h, Buffer.from(k), Buffer.from(v)]);
        };
        const all = Buffer.concat([answer('curr_items', '42'), answer('cmd_set', '7'), answer('', '')]);
        for (let i = 0; i < all.length; i += 5) sock.write(all.subarray(i, i + 5));
      });
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const conn = await AdminConnection.open({ port: server.address().port });
    try {
      assert.deepEqual(await conn.stats(), { curr_items: '42', cmd_set: '7' });
    } finally {
      conn.close();
      server.close();
    }
  });
});

describe('cluster-admin against ternd', () => {
  let ternd;
  before(async () => { ternd = await startTernd(); });
  after(async () => { await stopCleanly(ternd); });

  it('says HELLO, authenticates with SCRAM-SHA512 and reads the bucket map', async () => {
    const conn = await AdminConnection.open({ port: ternd.port });
    try {
      const accepted = await conn.hello([Feature.Xerror, Feature.SelectBucket, Feature.Json]);
      assert.ok(accepted.includes(Feature.Xerror), `HELLO accepted ${accepted}`);
      assert.ok(accepted.includes(Feature.SelectBucket), `HELLO accepted ${accepted}`);
      const mechs = await conn.listMechanisms();
      assert.ok(mechs.includes('SCRAM-SHA512'), `mechanisms: ${mechs}`);
      await conn.authenticate(USER, PASSWORD);
      await conn.selectBucket(BUCKET);
      const map = await conn.getClusterConfig();
      assert.equal(map.name, BUCKET);
      assert.equal(map.vBucketServerMap.vBucketMap.length, 1024);
      assert.equal(map.nodesExt.length, 1);
      assert.equal(map.nodesExt[0].services.kv, ternd.port);
      assert.ok(map.bucketCapabilities.includes('collections'));
      const stats = await conn.stats();
      assert.ok('curr_items' in stats, `stats: ${Object.keys(stats).join(' ')}`);
    } finally {
      conn.close();
    }
  });

  it('a wrong password answers AuthError', async () => {
    const conn = await AdminConnection.open({ port: ternd.port });
    try {
      await conn.hello();
      await assert.rejects(conn.authenticate(USER, 'not-the-password'), (err) => err.status === Status.AuthError);
      // The connection stays usable for a retry.
      await conn.authenticate(USER, PASSWORD);
    } finally {
      conn.close();
    }
  });

  it('SELECT_BUCKET of an unknown bucket answers Eaccess', async () => {
    const conn = await connectAdmin({ port: ternd.port, bucket: null });
    try {
      await assert.rejects(conn.selectBucket('no-such-bucket'), (err) => err.status === Status.Eaccess);
    } finally {
      conn.close();
    }
  });
});
