// The console's reading of GET /metrics (server/ui/js/prometheus.js and metrics.js), on its
// own: the Prometheus text format, and the rates and latency quantiles the charts draw.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePrometheus } from '../../server/ui/js/prometheus.js';
import { bucketTotals, quantile, rates } from '../../server/ui/js/metrics.js';

// One scrape: operations per bucket, and a latency histogram of two opcodes. As ternd does,
// an opcode's buckets start at its first non-empty one: SET's has no 0.001 bound.
function scrape({ a, b }) {
  return `# HELP kv_ops Operations, by kind and result
# TYPE kv_ops untyped
kv_ops{bucket="a",op="get",result="hit"} ${a.gets}
kv_ops{bucket="a",op="set"} ${a.sets}
kv_ops{bucket="b",op="set"} ${b.sets}
# TYPE kv_cmd_duration_seconds histogram
kv_cmd_duration_seconds_bucket{bucket="a",opcode="GET",le="0.001"} ${a.fastGets}
kv_cmd_duration_seconds_bucket{bucket="a",opcode="GET",le="0.002"} ${a.gets}
kv_cmd_duration_seconds_bucket{bucket="a",opcode="GET",le="+Inf"} ${a.gets}
kv_cmd_duration_seconds_bucket{bucket="a",opcode="SET",le="0.002"} ${a.sets}
kv_cmd_duration_seconds_bucket{bucket="a",opcode="SET",le="+Inf"} ${a.sets}
kv_cmd_duration_seconds_count{bucket="a",opcode="GET"} ${a.gets}
kv_cmd_duration_seconds_count{bucket="a",opcode="SET"} ${a.sets}
kv_curr_items{bucket="a"} 12
`;
}

describe('the console reads /metrics', () => {
  it('parses samples, labels with escapes, special values and timestamps', () => {
    const samples = parsePrometheus([
      '# HELP x something',
      '',
      'up 1',
      'kv_thing{bucket="we\\"ird\\\\name",le="+Inf"} 3 1700000000000',
      'kv_other{ a = "1" , b="x\\ny" } -Inf',
      'kv_nan NaN',
    ].join('\n'));
    assert.deepEqual(samples.slice(0, 3), [
      { name: 'up', labels: {}, value: 1 },
      { name: 'kv_thing', labels: { bucket: 'we"ird\\name', le: '+Inf' }, value: 3 },
      { name: 'kv_other', labels: { a: '1', b: 'x\ny' }, value: -Infinity },
    ]);
    assert.ok(Number.isNaN(samples[3].value));
    assert.throws(() => parsePrometheus('kv{bucket="a" 1'), /bad labels/);
    assert.throws(() => parsePrometheus('{} 1'), /bad sample/);
  });

  it('sums a bucket over its other labels, bound by bound', () => {
    const totals = bucketTotals(parsePrometheus(scrape({ a: { gets: 10, sets: 4, fastGets: 6 }, b: { sets: 7 } })));
    assert.equal(totals.get('a').ops, 14);
    assert.equal(totals.get('b').ops, 7);
    assert.deepEqual([...totals.get('a').latency], [[0.001, 6], [0.002, 14], [Infinity, 14]]);
    assert.equal(totals.get('a').latencyCount, 14);
  });

  it('interpolates quantiles inside the bucket that holds them, as histogram_quantile does', () => {
    const h = [{ le: 0.001, count: 50 }, { le: 0.002, count: 100 }, { le: Infinity, count: 100 }];
    assert.equal(quantile(0.5, h), 0.001);
    assert.equal(quantile(0.25, h), 0.0005);
    assert.ok(Math.abs(quantile(0.99, h) - 0.00198) < 1e-12);
    // Past the last finite bound, the bound is all that is known.
    assert.equal(quantile(0.99, [{ le: 0.001, count: 1 }, { le: Infinity, count: 10 }]), 0.001);
    assert.equal(quantile(0.5, [{ le: 0.001, count: 0 }, { le: Infinity, count: 0 }]), null);
  });

  it('turns two scrapes into ops/s and the latency of the operations between them', () => {
    const before = bucketTotals(parsePrometheus(scrape({ a: { gets: 10, sets: 4, fastGets: 6 }, b: { sets: 7 } })));
    // Two seconds later: 100 more gets on a, all fast; 4 more sets on a (slow); none on b.
    const after = bucketTotals(parsePrometheus(scrape({ a: { gets: 110, sets: 8, fastGets: 106 }, b: { sets: 7 } })));
    const r = rates(before, after, 2);
    assert.equal(r.get('a').opsPerSec, 52);
    // 104 operations in the window: 100 at <= 1 ms, 4 in (1 ms, 2 ms].
    assert.ok(Math.abs(r.get('a').p50 - 0.001 * (52 / 100)) < 1e-12);
    assert.ok(r.get('a').p99 > 0.001 && r.get('a').p99 <= 0.002);
    assert.deepEqual(r.get('b'), { opsPerSec: 0, p50: null, p99: null });
    // A bucket first seen in the later scrape waits for the next; a counter that went down
    // (ternd restarted) counts as no operations.
    assert.equal(rates(new Map(), after, 2).size, 0);
    assert.equal(rates(after, before, 2).get('a').opsPerSec, 0);
  });
});
