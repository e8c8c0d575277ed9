// What the live charts show, from two scrapes of GET /metrics: per bucket, operations per
// second and latency quantiles over the time between them. The metric names are ternd's
// (server/src/metrics/): a counter of operations and a histogram of command durations in
// seconds, both with a `bucket` label; every other label (opcode, result) is summed over.
// An opcode's histogram may leave out its leading empty buckets (ternd writes them from the
// first non-empty one): a bound missing from a series counts 0 for it, which is exact.

export const OPS_COUNTERS = ['kv_ops', 'kv_ops_total'];
export const LATENCY_HISTOGRAM = 'kv_cmd_duration_seconds';

function totalsOf(map, bucket) {
  let t = map.get(bucket);
  if (!t) {
    t = { ops: 0, hasOps: false, latency: new Map(), latencyCount: 0 };
    map.set(bucket, t);
  }
  return t;
}

/**
 * Per bucket from one scrape's samples (prometheus.js): { ops, hasOps, latency: Map(le ->
 * cumulative count), latencyCount }.
 */
export function bucketTotals(samples) {
  const out = new Map();
  for (const { name, labels, value } of samples) {
    if (labels.bucket === undefined || !Number.isFinite(value)) continue;
    if (OPS_COUNTERS.includes(name)) {
      const t = totalsOf(out, labels.bucket);
      t.ops += value;
      t.hasOps = true;
    } else if (name === `${LATENCY_HISTOGRAM}_bucket` && labels.le !== undefined) {
      const t = totalsOf(out, labels.bucket);
      const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
      t.latency.set(le, (t.latency.get(le) ?? 0) + value);
    } else if (name === `${LATENCY_HISTOGRAM}_count`) {
      totalsOf(out, labels.bucket).latencyCount += value;
    }
  }
  return out;
}

/**
 * The q-quantile (0..1) of a histogram given as [{ le, count }], cumulative counts in
 * ascending `le` (the last one +Inf), interpolated linearly inside the bucket that holds it,
 * as Prometheus's histogram_quantile does. null when the histogram counts nothing.
 */
export function quantile(q, buckets) {
  const total = buckets.length ? buckets[buckets.length - 1].count : 0;
  if (!(total > 0)) return null;
  const rank = q * total;
  let lowerLe = 0;
  let lowerCount = 0;
  for (const { le, count } of buckets) {
    if (count >= rank) {
      if (le === Infinity) return lowerLe; // above the highest bound: the bound is all we know
      const inBucket = count - lowerCount;
      return inBucket > 0 ? lowerLe + ((le - lowerLe) * (rank - lowerCount)) / inBucket : le;
    }
    lowerLe = le;
    lowerCount = count;
  }
  return lowerLe;
}

/**
 * Per bucket between two scrapes (bucketTotals) taken `seconds` apart:
 * Map(bucket -> { opsPerSec, p50, p99 }), latencies in seconds (null when no operation ran).
 * A bucket missing from the earlier scrape is left out until the next one. A counter that
 * went down (ternd restarted) counts as no operations.
 */
export function rates(before, after, seconds) {
  const out = new Map();
  for (const [bucket, now] of after) {
    const prev = before.get(bucket);
    if (!prev || !(seconds > 0)) continue;
    const done = now.hasOps ? now.ops - prev.ops : now.latencyCount - prev.latencyCount;
    const les = [...now.latency.keys()].sort((a, b) => a - b);
    const window = les.map((le) => ({
      le,
      count: Math.max(0, now.latency.get(le) - (prev.latency.get(le) ?? 0)),
    }));
    out.set(bucket, {
      opsPerSec: Math.max(0, done) / seconds,
      p50: quantile(0.5, window),
      p99: quantile(0.99, window),
    });
  }
  return out;
}
