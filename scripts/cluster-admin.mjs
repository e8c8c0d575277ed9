#!/usr/bin/env node
// cluster-admin.mjs: a small admin client for ternd's Couchbase cluster control, on Node
// built-ins only (net, crypto, zlib). It frames the memcached binary protocol, says HELLO,
// authenticates with SCRAM-SHA512 (checking the server's signature), selects a bucket, and
// sends GET_CLUSTER_CONFIG, SET_CLUSTER_CONFIG, SET_VBUCKET and STAT. It also builds the
// cluster map JSON for N local nodes.
//
// Imported by compat/test (the functions below) and run by scripts/cluster.sh (the CLI):
//   node scripts/cluster-admin.mjs wait    --ports P1,P2,... [--timeout-ms 30000]
//   node scripts/cluster-admin.mjs setup   --ports P1,P2,...            (owner of vb i: floor(i*N/1024))
//   node scripts/cluster-admin.mjs move    --ports P1,P2,... --vbuckets 0-9,17 --to 1
//   node scripts/cluster-admin.mjs config  --port P                     (prints the node's map)
//   node scripts/cluster-admin.mjs stats   --port P [--group NAME]      (prints name value lines)
//   node scripts/cluster-admin.mjs vbucket KEY                          (prints the key's vbucket)
// Common flags: --host 127.0.0.1 --user Administrator --password password --bucket default.
import net from 'node:net';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

export const NUM_VBUCKETS = 1024;

export const Magic = Object.freeze({ Request: 0x80, Response: 0x81, AltRequest: 0x08, AltResponse: 0x18 });

export const Opcode = Object.freeze({
  Get: 0x00, Set: 0x01, Noop: 0x0a, Stat: 0x10, Hello: 0x1f,
  SaslListMechs: 0x20, SaslAuth: 0x21, SaslStep: 0x22, SetVbucket: 0x3d, GetVbucket: 0x3e,
  SelectBucket: 0x89, SetClusterConfig: 0xb4, GetClusterConfig: 0xb5, GetErrorMap: 0xfe,
});

export const Status = Object.freeze({
  Success: 0x00, KeyEnoent: 0x01, NotMyVbucket: 0x07, NoBucket: 0x08, AuthError: 0x20,
  AuthContinue: 0x21, Eaccess: 0x24, UnknownCommand: 0x81, NotSupported: 0x83,
});

export const Feature = Object.freeze({ Xerror: 0x07, SelectBucket: 0x08, Json: 0x0b });

export const VbucketState = Object.freeze({ active: 1, replica: 2, pending: 3, dead: 4 });

export const Datatype = Object.freeze({ Raw: 0x00, Json: 0x01 });

const HEADER_LEN = 24;

// ---------------------------------------------------------------------------------------
// Framing

/** Encodes one request frame. Fields not given are empty (or zero). */
export function encodeRequest({ opcode, key = Buffer.alloc(0), extras = Buffer.alloc(0),
  value = Buffer.alloc(0), datatype = 0, vbucket = 0, opaque = 0, cas = 0n }) {
  key = toBuffer(key); extras = toBuffer(extras); value = toBuffer(value);
  if (key.length > 0xffff) throw new RangeError('key longer than 65535 bytes');
  if (extras.length > 0xff) throw new RangeError('extras longer than 255 bytes');
  const header = Buffer.alloc(HEADER_LEN);
  header[0] = Magic.Request;
  header[1] = opcode;
  header.writeUInt16BE(key.length, 2);
  header[4] = extras.length;
  header[5] = datatype;
  header.writeUInt16BE(vbucket, 6);
  header.writeUInt32BE(extras.length + key.length + value.length, 8);
  header.writeUInt32BE(opaque >>> 0, 12);
  header.writeBigUInt64BE(BigInt(cas), 16);
  return Buffer.concat([header, extras, key, value]);
}

/**
 * Decodes one frame from the start of buf (a response, alt response or any other magic).
 * Returns { frame, size } or null when buf does not hold a whole frame yet.
 */
export function decodeFrame(buf) {
  if (buf.length < HEADER_LEN) return null;
  const bodyLen = buf.readUInt32BE(8);
  const size = HEADER_LEN + bodyLen;
  if (buf.length < size) return null;
  const magic = buf[0];
  let framingLen = 0;
  let keyLen;
  if (magic === Magic.AltResponse || magic === Magic.AltRequest) {
    framingLen = buf[2];
    keyLen = buf[3];
  } else {
    keyLen = buf.readUInt16BE(2);
  }
  const extrasLen = buf[4];
  if (framingLen + extrasLen + keyLen > bodyLen) {
    throw new Error(`malformed frame: framing ${framingLen} + extras ${extrasLen} + key ${keyLen} > body ${bodyLen}`);
  }
  let at = HEADER_LEN;
  const framingExtras = buf.subarray(at, at + framingLen); at += framingLen;
  const extras = buf.subarray(at, at + extrasLen); at += extrasLen;
  const key = buf.subarray(at, at + keyLen); at += keyLen;
  const value = buf.subarray(at, size);
  const frame = {
    magic, opcode: buf[1], datatype: buf[5], status: buf.readUInt16BE(6),
    opaque: buf.readUInt32BE(12), cas: buf.readBigUInt64BE(16),
    framingExtras: Buffer.from(framingExtras), extras: Buffer.from(extras),
    key: Buffer.from(key), value: Buffer.from(value),
  };
  return { frame, size };
}

function toBuffer(x) {
  if (Buffer.isBuffer(x)) return x;
  if (typeof x === 'string') return Buffer.from(x, 'utf8');
  if (x instanceof Uint8Array) return Buffer.from(x);
  throw new TypeError(`cannot encode ${typeof x} as bytes`);
}

export function statusName(status) {
  for (const [name, code] of Object.entries(Status)) if (code === status) return name;
  return `0x${status.toString(16).padStart(2, '0')}`;
}

export class ProtocolError extends Error {
  constructor(what, frame) {
    const text = frame.value.length ? `: ${frame.value.toString('utf8').slice(0, 300)}` : '';
    super(`${what} answered ${statusName(frame.status)}${text}`);
    this.status = frame.status;
    this.frame = frame;
  }
}

// ---------------------------------------------------------------------------------------
// SCRAM (RFC 5802), client side; the hash is 'sha512' for SCRAM-SHA512

const SCRAM_HASHES = { 'SCRAM-SHA512': 'sha512', 'SCRAM-SHA256': 'sha256', 'SCRAM-SHA1': 'sha1' };

function saslName(user) {
  return user.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

function parseScramAttributes(message) {
  const attrs = {};
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq !== 1) throw new Error(`malformed SCRAM attribute '${part}' in '${message}'`);
    attrs[part[0]] = part.slice(2);
  }
  return attrs;
}

function xor(a, b) {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i];
  return out;
}

/**
 * A SCRAM client conversation. first() gives the client-first message; final(serverFirst)
 * checks the server's nonce and gives the client-final message; verify(serverFinal) checks
 * the server signature and throws when it is wrong.
 */
export class ScramClient {
  constructor({ user, password, hash = 'sha512', nonce = crypto.randomBytes(24).toString('base64') }) {
    this.user = user;
    this.password = password;
    this.hash = hash;
    this.nonce = nonce;
    this.hashLen = crypto.createHash(hash).digest().length;
  }

  first() {
    this.clientFirstBare = `n=${saslName(this.user)},r=${this.nonce}`;
    return `n,,${this.clientFirstBare}`;
  }

  final(serverFirst) {
    const attrs = parseScramAttributes(serverFirst);
    if (attrs.r === undefined || attrs.s === undefined || attrs.i === undefined) {
      throw new Error(`server-first message lacks r, s or i: '${serverFirst}'`);
    }
    if (!attrs.r.startsWith(this.nonce) || attrs.r.length <= this.nonce.length) {
      throw new Error(`server nonce '${attrs.r}' does not extend the client nonce '${this.nonce}'`);
    }
    const iterations = Number(attrs.i);
    if (!Number.isInteger(iterations) || iterations < 1) throw new Error(`bad iteration count '${attrs.i}'`);
    const salt = Buffer.from(attrs.s, 'base64');
    const salted = crypto.pbkdf2Sync(this.password, salt, iterations, this.hashLen, this.hash);
    const clientKey = hmac(this.hash, salted, 'Client Key');
    const storedKey = crypto.createHash(this.hash).update(clientKey).digest();
    const withoutProof = `c=biws,r=${attrs.r}`;
    this.authMessage = `${this.clientFirstBare},${serverFirst},${withoutProof}`;
    const clientSignature = hmac(this.hash, storedKey, this.authMessage);
    const serverKey = hmac(this.hash, salted, 'Server Key');
    this.expectedServerSignature = hmac(this.hash, serverKey, this.authMessage).toString('base64');
    return `${withoutProof},p=${xor(clientKey, clientSignature).toString('base64')}`;
  }

  verify(serverFinal) {
    const attrs = parseScramAttributes(serverFinal);
    if (attrs.e !== undefined) throw new Error(`server refused the proof: e=${attrs.e}`);
    if (attrs.v === undefined) throw new Error(`server-final message lacks v: '${serverFinal}'`);
    if (attrs.v !== this.expectedServerSignature) {
      throw new Error(`server signature ${attrs.v} is not the expected ${this.expectedServerSignature}`);
    }
  }
}

function hmac(hash, key, data) {
  return crypto.createHmac(hash, key).update(data).digest();
}

// ---------------------------------------------------------------------------------------
// Connection

/** One admin connection: requests are pipelined and matched to answers by opaque. */
export class AdminConnection {
  constructor(socket, { timeoutMs = 10000 } = {}) {
    this.socket = socket;
    this.timeoutMs = timeoutMs;
    this.buffer = Buffer.alloc(0);
    this.pending = new Map();
    this.nextOpaque = 1;
    this.closed = false;
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', (err) => this.failAll(err));
    socket.on('close', () => { this.closed = true; this.failAll(new Error('connection closed')); });
  }

  /** Connects to host:port and resolves once the TCP connection is up. */
  static open({ host = '127.0.0.1', port, timeoutMs = 10000 }) {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host, port });
      socket.setNoDelay(true);
      const timer = setTimeout(() => { socket.destroy(); reject(new Error(`connect to ${host}:${port} timed out`)); }, timeoutMs);
      socket.once('error', (err) => { clearTimeout(timer); reject(err); });
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new AdminConnection(socket, { timeoutMs }));
      });
    });
  }

  onData(chunk) {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      let decoded;
      try {
        decoded = decodeFrame(this.buffer);
      } catch (err) {
        this.failAll(err);
        this.socket.destroy();
        return;
      }
      if (!decoded) return;
      this.buffer = this.buffer.subarray(decoded.size);
      this.onFrame(decoded.frame);
    }
  }

  onFrame(frame) {
    const entry = this.pending.get(frame.opaque);
    if (!entry || (frame.magic !== Magic.Response && frame.magic !== Magic.AltResponse)) return;
    if (entry.multi) {
      // STAT: one answer per stat, closed by an answer with an empty key and value.
      if (frame.status !== Status.Success || (frame.key.length === 0 && frame.value.length === 0)) {
        this.settle(frame.opaque, null, frame.status === Status.Success ? entry.frames : frame);
      } else {
        entry.frames.push(frame);
      }
      return;
    }
    this.settle(frame.opaque, null, frame);
  }

  settle(opaque, err, result) {
    const entry = this.pending.get(opaque);
    if (!entry) return;
    this.pending.delete(opaque);
    clearTimeout(entry.timer);
    if (err) entry.reject(err); else entry.resolve(result);
  }

  failAll(err) {
    for (const opaque of [...this.pending.keys()]) this.settle(opaque, err);
  }

  /**
   * Sends one request and resolves with its answer frame (any status). With multi, resolves
   * with the list of frames before the terminating one (STAT), or the error frame.
   */
  request(fields, { multi = false, timeoutMs = this.timeoutMs } = {}) {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const opaque = this.nextOpaque++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.settle(opaque, new Error(`opcode 0x${fields.opcode.toString(16)} got no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(opaque, { resolve, reject, timer, multi, frames: [] });
      this.socket.write(encodeRequest({ ...fields, opaque }));
    });
  }

  /** request(), then throws a ProtocolError unless the status is one of `ok`. */
  async expect(what, fields, ok = [Status.Success]) {
    const frame = await this.request(fields);
    if (!ok.includes(frame.status)) throw new ProtocolError(what, frame);
    return frame;
  }

  /** HELLO; resolves with the list of feature codes the server accepted. */
  async hello(features = [Feature.Xerror, Feature.SelectBucket, Feature.Json], agent = 'tern-cluster-admin') {
    const value = Buffer.alloc(features.length * 2);
    features.forEach((f, i) => value.writeUInt16BE(f, i * 2));
    const frame = await this.expect('HELLO', { opcode: Opcode.Hello, key: agent, value });
    const accepted = [];
    for (let i = 0; i + 1 < frame.value.length; i += 2) accepted.push(frame.value.readUInt16BE(i));
    return accepted;
  }

  async listMechanisms() {
    const frame = await this.expect('SASL_LIST_MECHS', { opcode: Opcode.SaslListMechs });
    return frame.value.toString('utf8').split(/\s+/).filter(Boolean);
  }

  /** SCRAM authentication; throws a ProtocolError (status AuthError) on a wrong password. */
  async authenticate(user, password, mechanism = 'SCRAM-SHA512') {
    const hash = SCRAM_HASHES[mechanism];
    if (!hash) throw new Error(`unsupported mechanism ${mechanism}`);
    const scram = new ScramClient({ user, password, hash });
    const first = await this.expect('SASL_AUTH',
      { opcode: Opcode.SaslAuth, key: mechanism, value: scram.first() }, [Status.AuthContinue]);
    const clientFinal = scram.final(first.value.toString('utf8'));
    const last = await this.expect('SASL_STEP', { opcode: Opcode.SaslStep, key: mechanism, value: clientFinal });
    scram.verify(last.value.toString('utf8'));
  }

  async selectBucket(name) {
    await this.expect(`SELECT_BUCKET ${name}`, { opcode: Opcode.SelectBucket, key: name });
  }

  /** GET_CLUSTER_CONFIG; resolves with the parsed map. */
  async getClusterConfig() {
    const frame = await this.expect('GET_CLUSTER_CONFIG', { opcode: Opcode.GetClusterConfig });
    return JSON.parse(frame.value.toString('utf8'));
  }

  /** SET_CLUSTER_CONFIG: key = bucket name, value = the map JSON, datatype JSON, no extras. */
  async setClusterConfig(bucket, map) {
    const value = typeof map === 'string' ? map : JSON.stringify(map);
    await this.expect('SET_CLUSTER_CONFIG',
      { opcode: Opcode.SetClusterConfig, key: bucket, value, datatype: Datatype.Json });
  }

  /** SET_VBUCKET: vbucket id in the header, extras = 1 byte state. */
  async setVbucket(vbucket, state) {
    const code = typeof state === 'string' ? VbucketState[state] : state;
    if (!code) throw new Error(`unknown vbucket state ${state}`);
    await this.expect(`SET_VBUCKET ${vbucket} ${state}`,
      { opcode: Opcode.SetVbucket, vbucket, extras: Buffer.from([code]) });
  }

  /** STAT [group]; resolves with { name: value } (both strings). */
  async stats(group = '') {
    const result = await this.request({ opcode: Opcode.Stat, key: group }, { multi: true });
    if (!Array.isArray(result)) throw new ProtocolError(`STAT ${group}`, result);
    const out = {};
    for (const f of result) out[f.key.toString('utf8')] = f.value.toString('utf8');
    return out;
  }

  async noop() {
    await this.expect('NOOP', { opcode: Opcode.Noop });
  }

  close() {
    this.closed = true;
    this.socket.end();
    this.socket.destroy();
  }
}

/**
 * Opens an admin connection: HELLO (XERROR, SelectBucket, JSON), SCRAM-SHA512 as `user`,
 * then SELECT_BUCKET when `bucket` is given.
 */
export async function connectAdmin({ host = '127.0.0.1', port, user = 'Administrator',
  password = 'password', bucket = 'default', timeoutMs = 10000 } = {}) {
  const conn = await AdminConnection.open({ host, port, timeoutMs });
  try {
    await conn.hello();
    await conn.authenticate(user, password);
    if (bucket) await conn.selectBucket(bucket);
    return conn;
  } catch (err) {
    conn.close();
    throw err;
  }
}

/** Runs fn(conn) on a fresh admin connection and closes it afterwards. */
export async function withAdmin(options, fn) {
  const conn = await connectAdmin(options);
  try {
    return await fn(conn);
  } finally {
    conn.close();
  }
}

// ---------------------------------------------------------------------------------------
// Keys, vbuckets and maps

let crcTable;
/** Standard CRC-32 (reflected, polynomial 0xEDB88320), as zlib computes it. */
export function crc32(data) {
  const buf = toBuffer(data);
  if (typeof zlib.crc32 === 'function') return zlib.crc32(buf) >>> 0;
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of buf) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** The vbucket of a logical key (without its collection prefix). */
export function vbucketOf(key, count = NUM_VBUCKETS) {
  return ((crc32(key) >>> 16) & 0x7fff) % count;
}

/** Owners for N nodes: vbucket i belongs to node floor(i*N/count). */
export function evenOwners(nodeCount, count = NUM_VBUCKETS) {
  return Array.from({ length: count }, (_, i) => Math.floor((i * nodeCount) / count));
}

/**
 * The cluster map of one bucket for nodes on 127.0.0.1 at `ports`, in the format of
 * official-sdk-compat.md. owners[vb] is the index of the node owning vb (0 replicas).
 * thisNode is true only on node `thisIndex` (pass -1 for none).
 */
export function buildClusterMap({ ports, owners = evenOwners(ports.length), thisIndex = -1,
  rev, revEpoch = 1, bucket = 'default', uuid, manifestUid = '0', host = '127.0.0.1',
  bucketCapabilities = ['cccp', 'nodesExt', 'touch', 'cbhello', 'collections', 'durableWrite'] }) {
  if (!Number.isInteger(rev)) throw new Error('buildClusterMap needs an integer rev');
  if (owners.some((o) => !Number.isInteger(o) || o < 0 || o >= ports.length)) {
    throw new Error('buildClusterMap: an owner index is outside the node list');
  }
  return {
    rev,
    revEpoch,
    name: bucket,
    uuid: uuid ?? crypto.createHash('md5').update(bucket).digest('hex'),
    nodeLocator: 'vbucket',
    bucketCapabilitiesVer: '',
    bucketCapabilities,
    collectionsManifestUid: String(manifestUid),
    nodes: ports.map((port) => ({ hostname: `${host}:8091`, ports: { direct: port } })),
    nodesExt: ports.map((port, i) => ({
      services: { kv: port },
      ...(i === thisIndex ? { thisNode: true } : {}),
      hostname: host,
    })),
    vBucketServerMap: {
      hashAlgorithm: 'CRC',
      numReplicas: 0,
      serverList: ports.map((port) => `${host}:${port}`),
      vBucketMap: owners.map((o) => [o]),
    },
    clusterCapabilitiesVer: [1, 0],
    clusterCapabilities: {},
  };
}

/** Parses "0-9,17,20-21" into a sorted list of vbucket ids. */
export function parseVbucketList(text) {
  const out = new Set();
  for (const part of String(text).split(',').filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`bad vbucket range '${part}'`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (lo > hi || hi >= NUM_VBUCKETS) throw new Error(`bad vbucket range '${part}'`);
    for (let v = lo; v <= hi; v++) out.add(v);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * Installs a map on every node: reads each node's current map (for the uuid, the manifest
 * uid and the highest rev), sends each node its own copy (thisNode on it) with rev =
 * highest + 1 (or `rev`), then sets every vbucket's state on every node: active where the
 * node owns it, dead elsewhere. With previousOwners, only the vbuckets whose owner changed
 * get new states. Resolves with the installed rev and revEpoch.
 */
export async function installMap({ ports, owners, previousOwners, host = '127.0.0.1', user, password,
  bucket = 'default', rev, revEpoch, timeoutMs = 10000 }) {
  const conns = [];
  try {
    for (const port of ports) conns.push(await connectAdmin({ host, port, user, password, bucket, timeoutMs }));
    const current = await Promise.all(conns.map((c) => c.getClusterConfig()));
    const epoch = revEpoch ?? Math.max(...current.map((m) => Number(m.revEpoch ?? 1)));
    const nextRev = rev ?? Math.max(...current.map((m) => Number(m.rev ?? 0))) + 1;
    const first = current[0];
    await Promise.all(conns.map((c, i) => c.setClusterConfig(bucket, buildClusterMap({
      ports, owners, thisIndex: i, rev: nextRev, revEpoch: epoch, bucket,
      uuid: first.uuid, manifestUid: first.collectionsManifestUid ?? '0',
      // What the bucket can do is the node's to say (ternd lists it in its own map), not ours.
      ...(first.bucketCapabilities ? { bucketCapabilities: first.bucketCapabilities } : {}),
    }))));
    // New owners first (active), then the old ones (dead): a vbucket is never without an
    // active copy for longer than it takes to send these.
    const changed = (vb) => !previousOwners || previousOwners[vb] !== owners[vb];
    await Promise.all(conns.map((c, i) => setStates(c, owners, (o, vb) => changed(vb) && o === i, 'active')));
    await Promise.all(conns.map((c, i) => setStates(c, owners, (o, vb) => changed(vb) && o !== i, 'dead')));
    return { rev: nextRev, revEpoch: epoch };
  } finally {
    for (const c of conns) c.close();
  }
}

async function setStates(conn, owners, pick, state) {
  const jobs = [];
  owners.forEach((owner, vb) => { if (pick(owner, vb)) jobs.push(conn.setVbucket(vb, state)); });
  await Promise.all(jobs);
}

/** Waits until every port answers an authenticated NOOP (or the timeout passes). */
export async function waitForNodes({ ports, host = '127.0.0.1', user, password, bucket = 'default',
  timeoutMs = 30000 }) {
  const deadline = Date.now() + timeoutMs;
  for (const port of ports) {
    let lastError;
    for (;;) {
      try {
        await withAdmin({ host, port, user, password, bucket, timeoutMs: 5000 }, (c) => c.noop());
        break;
      } catch (err) {
        lastError = err;
        // A node that answers with a refusal will not change its mind: only a connection
        // error or a temporary status is worth waiting out.
        if (err instanceof ProtocolError && ![0x08, 0x25, 0x86].includes(err.status)) {
          throw new Error(`node ${host}:${port}: ${err.message}`);
        }
        if (Date.now() > deadline) {
          throw new Error(`node ${host}:${port} did not answer within ${timeoutMs} ms: ${lastError.message}`);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// CLI

function parseArgs(argv) {
  const args = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const name = a.slice(2);
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
      args[name] = value;
      i++;
    } else {
      args._.push(a);
    }
  }
  return args;
}

async function main(argv) {
  const args = parseArgs(argv);
  const common = {
    host: args.host ?? '127.0.0.1',
    user: args.user ?? process.env.CB_USER ?? 'Administrator',
    password: args.password ?? process.env.CB_PASSWORD ?? 'password',
    bucket: args.bucket ?? 'default',
  };
  const ports = () => {
    if (!args.ports) throw new Error('--ports P1,P2,... is required');
    return args.ports.split(',').map((p) => Number(p));
  };
  const [command, ...rest] = args._;
  switch (command) {
    case 'wait':
      await waitForNodes({ ...common, ports: ports(), timeoutMs: Number(args['timeout-ms'] ?? 30000) });
      return;
    case 'setup': {
      const p = ports();
      const r = await installMap({ ...common, ports: p, owners: evenOwners(p.length) });
      console.log(`cluster-admin: map rev ${r.rev} (epoch ${r.revEpoch}) installed on ${p.length} node(s)`);
      return;
    }
    case 'move': {
      const p = ports();
      const to = Number(args.to);
      const vbs = parseVbucketList(args.vbuckets ?? '');
      if (!Number.isInteger(to) || to < 0 || to >= p.length) throw new Error('--to must name a node index');
      const current = await withAdmin({ ...common, port: p[0] }, (c) => c.getClusterConfig());
      const previousOwners = current.vBucketServerMap.vBucketMap.map((e) => e[0]);
      const owners = [...previousOwners];
      for (const vb of vbs) owners[vb] = to;
      const r = await installMap({ ...common, ports: p, owners, previousOwners });
      console.log(`cluster-admin: ${vbs.length} vbucket(s) moved to node ${to}; map rev ${r.rev}`);
      return;
    }
    case 'config': {
      const map = await withAdmin({ ...common, port: Number(args.port) }, (c) => c.getClusterConfig());
      console.log(JSON.stringify(map, null, 2));
      return;
    }
    case 'stats': {
      const stats = await withAdmin({ ...common, port: Number(args.port) }, (c) => c.stats(args.group ?? ''));
      for (const [k, v] of Object.entries(stats)) console.log(`${k} ${v}`);
      return;
    }
    case 'vbucket':
      for (const key of rest) console.log(`${key} ${vbucketOf(key)}`);
      return;
    default:
      console.error('usage: cluster-admin.mjs wait|setup|move|config|stats|vbucket ... (see the header of this file)');
      process.exitCode = 64;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(`cluster-admin: ${err.message}`);
    process.exitCode = 1;
  });
}
