// The Buckets tab: the bucket table and the live charts, refreshed every second while shown.
import { getJson, request } from './api.js';
import { renderBuckets } from './buckets.js';
import { Charts } from './charts.js';
import { bucketTotals, rates } from './metrics.js';
import * as paths from './paths.js';
import { parsePrometheus } from './prometheus.js';
import { every } from './ticker.js';

export class Overview {
  constructor({ tbody, charts }, onError) {
    this.tbody = tbody;
    this.charts = new Charts(charts);
    this.onError = onError;
    this.stop = null;
    this.last = null; // { totals, at } of the previous scrape
  }

  start() {
    if (this.stop) return;
    this.last = null;
    this.stop = every(1000, () => this.refresh(), this.onError);
  }

  pause() {
    this.stop?.();
    this.stop = null;
  }

  async refresh() {
    // The table and the charts fail apart: a user without a read grant may see no metrics.
    const [buckets, metrics] = await Promise.allSettled([
      getJson(paths.BUCKETS),
      request('GET', paths.METRICS),
    ]);
    if (buckets.status === 'fulfilled') renderBuckets(this.tbody, buckets.value);
    if (metrics.status === 'fulfilled') {
      const at = performance.now();
      const totals = bucketTotals(parsePrometheus(metrics.value));
      if (this.last) this.charts.update(Date.now() / 1000, rates(this.last.totals, totals, (at - this.last.at) / 1000));
      this.last = { totals, at };
    }
    const failed = [buckets, metrics].find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
