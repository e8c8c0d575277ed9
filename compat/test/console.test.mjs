// The web console (/ui/ on the management port) in a real browser: headless Chromium (Debian's
// `chromium`) driven by puppeteer-core, against a real ternd, with the official Node.js SDK
// making the load and checking what the console changed. Skipped when there is no Chromium
// (set CHROMIUM to use another binary). Screenshots go to build/test-output/console/
// (TEST_OUTPUT_DIR overrides it).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import couchbase from 'couchbase';
import puppeteer from 'puppeteer-core';
import {
  startTernd, stopCleanly, eventually, repoRoot, USER, PASSWORD, BUCKET,
} from '../lib/ternd.mjs';

const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(chromiumPath);
const outputDir = path.resolve(process.env.TEST_OUTPUT_DIR ?? path.join(repoRoot, 'build', 'test-output'), 'console');

// Generous: Chromium and ternd share a busy two-core machine.
const WAIT_MS = 60000;
const TEST_TIMEOUT_MS = 180000;
const TIMEOUTS = { kvTimeout: 10000, connectTimeout: 10000, bootstrapTimeout: 20000, managementTimeout: 20000 };
// The flags Chromium needs on this kind of machine (no sandbox as root, and no background
// connections: the network is closed).
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
// The charts' line colours (server/ui/js/charts.js), as RGB.
const OPS_COLOUR = [0x1f, 0x6f, 0xd1];
const P50_COLOUR = [0x2e, 0x9d, 0x57];
const P99_COLOUR = [0xd9, 0x82, 0x2b];

/**
 * Upserts and gets on `collection` until stop() (or 90 s, or 2 million operations: it always
 * ends by itself). Resolves `done` with the number of operations.
 */
function startLoad(collection) {
  let stopped = false;
  const deadline = Date.now() + 90000;
  const done = (async () => {
    let ops = 0;
    while (!stopped && Date.now() < deadline && ops < 2000000) {
      // Eight upserts and eight gets of the same eight keys, 200 keys in turn.
      const batch = [];
      for (let i = 0; i < 8; i++) {
        const key = `load-${(ops / 2 + i) % 200}`;
        batch.push(collection.upsert(key, { i: ops + i }), collection.get(key).catch(() => {}));
      }
      await Promise.all(batch);
      ops += batch.length;
    }
    return ops;
  })();
  return { done, stop: () => { stopped = true; return done; } };
}

/** The readouts of a bucket's chart card: { ops, p50, p99 } as numbers (null: none yet). */
async function readouts(page, bucket) {
  return page.$eval(`.chart-card[data-bucket="${bucket}"]`, (card) => {
    const value = (metric) => {
      const text = card.querySelector(`[data-metric="${metric}"]`).dataset.value;
      return text === '' ? null : Number(text);
    };
    return { ops: value('ops'), p50: value('p50'), p99: value('p99') };
  });
}

/**
 * Pixels of each colour drawn on the canvases of a chart card's plots: { ops, p50, p99 }.
 * A colour counts within a small distance (anti-aliased lines blend into the background).
 */
async function linePixels(page, bucket) {
  return page.$eval(`.chart-card[data-bucket="${bucket}"]`, (card, colours) => {
    const count = (plotName, [r, g, b]) => {
      const canvas = card.querySelector(`[data-plot="${plotName}"] canvas`);
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      let n = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] > 200 && Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 60) n += 1;
      }
      return n;
    };
    return { ops: count('ops', colours.ops), p50: count('latency', colours.p50), p99: count('latency', colours.p99) };
  }, { ops: OPS_COLOUR, p50: P50_COLOUR, p99: P99_COLOUR });
}

/** The manifest of the bucket, over the REST API (what the server really has). */
async function scopesOf(base, bucket) {
  const res = await fetch(`${base}/pools/default/buckets/${bucket}/scopes`, {
    headers: { Authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` },
  });
  assert.equal(res.status, 200);
  return res.json();
}

/** Replaces a text field's content by typing, as a person would. */
async function retype(page, selector, text) {
  await page.click(selector);
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  await page.type(selector, text);
}

describe('the web console in headless Chromium', { skip: !haveChromium && `no Chromium at ${chromiumPath}` }, () => {
  let ternd;
  let base;
  let browser;
  let page;
  let profileDir;
  let cluster;
  const pageErrors = [];

  before(async () => {
    fs.mkdirSync(outputDir, { recursive: true });
    ternd = await startTernd(); // with its management port on a free port
    assert.ok(ternd.mgmtPort, 'ternd has a management port');
    base = `http://127.0.0.1:${ternd.mgmtPort}`;
    profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tern-console-chromium-'));
    browser = await puppeteer.launch({
      executablePath: chromiumPath,
      headless: true,
      userDataDir: profileDir,
      args: CHROMIUM_ARGS,
      protocolTimeout: 120000,
    });
    page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('dialog', (dialog) => dialog.accept()); // the console's "Drop ...?" confirmations
    await page.setViewport({ width: 1200, height: 760 });
    cluster = await couchbase.connect(ternd.connStr, { username: USER, password: PASSWORD, timeouts: TIMEOUTS });
  });

  after(async () => {
    await cluster?.close();
    await browser?.close();
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
    await stopCleanly(ternd);
  });

  it('serves the console at /ui/ with no login, typed, and / leads there', { timeout: TEST_TIMEOUT_MS }, async () => {
    const root = await fetch(`${base}/`, { redirect: 'manual' });
    assert.equal(root.status, 302);
    assert.equal(new URL(root.headers.get('location'), base).pathname, '/ui/');
    const pageRes = await fetch(`${base}/ui/`);
    assert.equal(pageRes.status, 200);
    assert.match(pageRes.headers.get('content-type'), /^text\/html/);
    assert.match(pageRes.headers.get('content-security-policy'), /script-src 'self'/);
    const script = await fetch(`${base}/ui/js/api.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type'), /^text\/javascript/);
    assert.match(await script.text(), /ns-server-ui/);
    const chartLibrary = await fetch(`${base}/ui/vendor/uPlot.iife.min.js`);
    assert.equal(chartLibrary.status, 200);
    assert.ok((await chartLibrary.text()).length > 10000, 'the charting library is served whole');
    assert.equal((await fetch(`${base}/ui/no-such-file.js`)).status, 404);
    // Data is not public: the console's own header gets a 401 with no browser dialog.
    const data = await fetch(`${base}/pools/default/buckets`, { headers: { 'ns-server-ui': 'yes' } });
    assert.equal(data.status, 401);
    assert.equal(data.headers.get('www-authenticate'), null);
  });

  it('refuses a wrong password and logs in with the right one', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.goto(`${base}/`, { waitUntil: 'load' });
    assert.equal(new URL(page.url()).pathname, '/ui/');
    await page.waitForSelector('#login-form', { visible: true });
    await page.type('#login-form input[name=user]', USER);
    await page.type('#login-form input[name=password]', 'not-the-password');
    await page.click('#login-form button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#login-error').textContent !== '');
    assert.match(await page.$eval('#login-error', (e) => e.textContent), /wrong user or password/i);
    assert.equal(await page.$eval('#overview-view', (e) => e.hidden), true);

    await retype(page, '#login-form input[name=password]', PASSWORD);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#overview-view', { visible: true });
    await page.waitForSelector(`#bucket-table tr[data-bucket="${BUCKET}"]`);
    const row = await page.$eval(`#bucket-table tr[data-bucket="${BUCKET}"]`, (tr) => [...tr.cells].map((c) => c.textContent));
    assert.equal(row[0], BUCKET);
    assert.equal(row[1], 'couchbase');
    assert.match(row[3], /\/ 256 MiB$/, 'memory against the bucket quota of dev.toml');
  });

  it('draws live ops/s and latency percentiles while a load runs, and goes back to 0 after it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const users = cluster.bucket(BUCKET).scope('app').collection('users');
    await page.waitForSelector(`.chart-card[data-bucket="${BUCKET}"]`);
    const load = startLoad(users);
    let during;
    try {
      await page.waitForFunction((bucket) => {
        const card = document.querySelector(`.chart-card[data-bucket="${bucket}"]`);
        const value = (m) => Number(card.querySelector(`[data-metric="${m}"]`).dataset.value || 0);
        return value('ops') > 0 && value('p50') > 0 && value('p99') > 0;
      }, { timeout: WAIT_MS, polling: 250 }, BUCKET);
      // A few more points, so that the lines have length, then the picture of the charts.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      during = await readouts(page, BUCKET);
      await page.screenshot({ path: path.join(outputDir, 'overview.png') });
    } finally {
      const ops = await load.stop();
      assert.ok(ops > 0, 'the load ran');
    }
    assert.ok(during.ops > 0, `ops/s under load: ${JSON.stringify(during)}`);
    assert.ok(during.p50 > 0 && during.p50 < 10, `p50 in seconds, under load: ${JSON.stringify(during)}`);
    assert.ok(during.p99 >= during.p50 && during.p99 < 10, `p99 >= p50: ${JSON.stringify(during)}`);
    const pixels = await linePixels(page, BUCKET);
    assert.ok(pixels.ops > 20 && pixels.p50 > 20 && pixels.p99 > 20, `the lines are drawn: ${JSON.stringify(pixels)}`);
    // The table shows the items the load stored (200 keys).
    await page.waitForFunction((bucket) => {
      const cell = document.querySelector(`#bucket-table tr[data-bucket="${bucket}"] [data-field="items"]`);
      return Number(cell.textContent.replace(/,/g, '')) >= 200;
    }, { timeout: WAIT_MS, polling: 250 }, BUCKET);
    // With the load over, the rate falls back to 0: it is a rate, not a running total.
    await page.waitForFunction((bucket) => {
      const card = document.querySelector(`.chart-card[data-bucket="${bucket}"]`);
      return card.querySelector('[data-metric="ops"]').dataset.value === '0';
    }, { timeout: WAIT_MS, polling: 250 }, BUCKET);
  });

  it('creates and drops scopes and collections', { timeout: TEST_TIMEOUT_MS }, async () => {
    await page.click('button[data-tab="documents"]');
    await page.waitForSelector('#scope-list li[data-scope="app"]');

    await page.type('#new-scope-form input[name=name]', 'console_scope');
    await page.click('#new-scope-form button[type=submit]');
    await page.waitForSelector('#scope-list li[data-scope="console_scope"]');
    assert.ok((await scopesOf(base, BUCKET)).scopes.some((s) => s.name === 'console_scope'));

    const appForm = '#scope-list li[data-scope="app"] > form';
    await page.type(`${appForm} input[name=name]`, 'console_made');
    await page.type(`${appForm} input[name=maxTTL]`, '3600');
    await page.click(`${appForm} button[type=submit]`);
    await page.waitForSelector('#scope-list li[data-scope="app"] li[data-collection="console_made"]');
    const app = (await scopesOf(base, BUCKET)).scopes.find((s) => s.name === 'app');
    const made = app.collections.find((c) => c.name === 'console_made');
    assert.ok(made, `the server has the collection: ${JSON.stringify(app)}`);
    assert.equal(made.maxTTL, 3600);
    // The SDK, connected before, uses the new collection at once.
    await cluster.bucket(BUCKET).scope('app').collection('console_made').upsert('probe', { ok: true });

    await page.click('#scope-list li[data-scope="console_scope"] > .row button.danger');
    await eventually('the console drops the scope',
      async () => !(await scopesOf(base, BUCKET)).scopes.some((s) => s.name === 'console_scope'), { timeoutMs: WAIT_MS });
    await page.waitForFunction(() => !document.querySelector('#scope-list li[data-scope="console_scope"]'));
  });

  it('pages through keys, edits a document and saves it with CAS, and deletes it', { timeout: TEST_TIMEOUT_MS }, async () => {
    const collection = cluster.bucket(BUCKET).scope('app').collection('console_made');
    await collection.remove('probe');
    for (let i = 0; i < 25; i++) await collection.upsert(`doc-${String(i).padStart(2, '0')}`, { n: i });

    await page.click('#scope-list li[data-collection="console_made"] button.link');
    await page.waitForSelector('#key-list li[data-id="doc-00"]');
    const keysOf = () => page.$$eval('#key-list li[data-id]', (items) => items.map((li) => li.dataset.id));
    const first = await keysOf();
    assert.equal(first.length, 20);
    assert.deepEqual(first, [...first].sort(), 'keys in order');
    await page.click('#keys-next');
    await page.waitForSelector('#key-list li[data-id="doc-24"]');
    assert.deepEqual(await keysOf(), ['doc-20', 'doc-21', 'doc-22', 'doc-23', 'doc-24']);
    assert.equal(await page.$eval('#keys-next', (b) => b.disabled), true);
    await page.click('#keys-prev');
    await page.waitForSelector('#key-list li[data-id="doc-00"]');

    // Open, edit, save: the SDK reads the new content, with the CAS the console showed.
    await page.click('#key-list li[data-id="doc-03"] button');
    await page.waitForFunction(() => document.querySelector('#editor-title').textContent === 'doc-03');
    assert.deepEqual(JSON.parse(await page.$eval('#editor-text', (t) => t.value)), { n: 3 });
    await retype(page, '#editor-text', '{"n": 3, "edited": "in the console"}');
    await page.click('#doc-save');
    await page.waitForFunction(() => /^Saved/.test(document.querySelector('#editor-status').textContent));
    const saved = await collection.get('doc-03');
    assert.deepEqual(saved.content, { n: 3, edited: 'in the console' });
    const shownCas = /CAS (\d+)/.exec(await page.$eval('#editor-status', (e) => e.textContent))[1];
    assert.equal(shownCas, saved.cas.toString());

    // A change made meanwhile by someone else: the save is refused, theirs stays.
    await collection.upsert('doc-03', { n: 3, edited: 'by the SDK' });
    await retype(page, '#editor-text', '{"n": 3, "edited": "in the console again"}');
    await page.click('#doc-save');
    await page.waitForFunction(() => /someone changed/.test(document.querySelector('#editor-status').textContent));
    assert.deepEqual((await collection.get('doc-03')).content, { n: 3, edited: 'by the SDK' });

    await page.screenshot({ path: path.join(outputDir, 'documents.png') });

    // Delete it (the console asks first; the test accepts).
    await page.click('#key-list li[data-id="doc-03"] button');
    await page.waitForFunction(() => /by the SDK/.test(document.querySelector('#editor-text').value));
    await page.click('#doc-delete');
    await page.waitForFunction(() => /^Deleted doc-03/.test(document.querySelector('#editor-status').textContent));
    await assert.rejects(collection.get('doc-03'), couchbase.DocumentNotFoundError);
    await page.waitForFunction(() => !document.querySelector('#key-list li[data-id="doc-03"]'));
    assert.deepEqual(pageErrors, [], 'no script error in the page');
  });
});
