// The Buckets tab: the bucket table and the live charts, refreshed every second while shown.
import { getJson, request } from './api.js';
import { renderBuckets } from './buckets.js';
import { Charts } from './charts.js';
import { bucketTotals, rates } from './metrics.js';
import * as paths from './paths.js';
import { parsePrometheus } from './prometheus.js';
import { every } from './ticker.js';

// The charts show each second the rates over the last WINDOW scrapes: a scrape answered late
// (the management threads yield to the KV port's on a busy machine) then moves one point a
// little instead of making a spike.
const WINDOW = 3;

export class Overview {
  constructor({ tbody, charts }, onError) {
    this.tbody = tbody;
    this.charts = new Charts(charts);
    this.onError = onError;
    this.stop = null;
    this.scrapes = []; // { totals, at } of the last WINDOW + 1 scrapes, oldest first
  }

  start() {
    if (this.stop) return;
    this.scrapes = [];
    this.stop = every(1000, () => this.refresh(), this.onError);
  }

  pause() {
    this.stop?.();
    this.stop = null;
  }

  async refresh() {
    // The table and the charts fail apart: a user without a read grant may see no metrics.
    // A scrape's time is when its answer came, not when both answers had: a slow bucket list
    // would otherwise shorten the next interval and show a spike.
    const [buckets, metrics] = await Promise.allSettled([
      getJson(paths.BUCKETS),
      request('GET', paths.METRICS).then((text) => ({ text, at: performance.now() })),
    ]);
    if (buckets.status === 'fulfilled') renderBuckets(this.tbody, buckets.value);
    if (metrics.status === 'fulfilled') {
      const { text, at } = metrics.value;
      const totals = bucketTotals(parsePrometheus(text));
      this.scrapes.push({ totals, at });
      if (this.scrapes.length > WINDOW + 1) this.scrapes.shift();
      const [oldest] = this.scrapes;
      if (this.scrapes.length > 1) {
        this.charts.update(Date.now() / 1000, rates(oldest.totals, totals, (at - oldest.at) / 1000));
      }
    }
    const failed = [buckets, metrics].find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
