// The live charts (uPlot, loaded by index.html as the global `uPlot`): per bucket, one card
// with ops/s and one with latency p50/p99, over the last minute, and the latest values as
// text beside the title.
import { el } from './dom.js';
import { formatCount, formatSeconds } from './format.js';

const POINTS = 60;
const WIDTH = 510;
const HEIGHT = 150;
export const COLOURS = { ops: '#1f6fd1', p50: '#2e9d57', p99: '#d9822b' };

const fromZero = (u, min, max) => [0, max > 0 ? max * 1.1 : 1];
const clock = (u, splits) => splits.map((t) => new Date(t * 1000).toLocaleTimeString('en-GB'));

// A uPlot of `series` against time, its y axis named `unit`; a legend only when it has
// several series (the readouts above name a single one).
function plot(target, unit, series) {
  return new uPlot(
    {
      width: WIDTH,
      height: HEIGHT,
      legend: { show: series.length > 1, live: false },
      cursor: { show: false },
      scales: { y: { range: fromZero } },
      axes: [
        { values: clock, space: 70, incrs: [1, 2, 5, 10, 15, 30, 60] },
        { size: 64, label: unit, labelSize: 16 },
      ],
      series: [{}, ...series.map((s) => ({ width: 2, points: { show: false }, ...s }))],
    },
    [[], ...series.map(() => [])],
    target,
  );
}

class BucketChart {
  constructor(bucket) {
    this.times = [];
    this.ops = [];
    this.p50 = [];
    this.p99 = [];
    this.readouts = {
      ops: el('b', { dataset: { metric: 'ops', value: '' } }, '–'),
      p50: el('b', { dataset: { metric: 'p50', value: '' } }, '–'),
      p99: el('b', { dataset: { metric: 'p99', value: '' } }, '–'),
    };
    const opsArea = el('div', { className: 'plot', dataset: { plot: 'ops' } });
    const latencyArea = el('div', { className: 'plot', dataset: { plot: 'latency' } });
    this.card = el('div', { className: 'card chart-card', dataset: { bucket } },
      el('h3', {}, bucket,
        el('span', { className: 'readouts' },
          el('span', {}, this.readouts.ops, ' ops/s'),
          el('span', {}, 'p50 ', this.readouts.p50),
          el('span', {}, 'p99 ', this.readouts.p99))),
      opsArea, latencyArea);
    this.opsPlot = plot(opsArea, 'ops/s', [{ label: 'ops/s', stroke: COLOURS.ops, fill: 'rgba(31,111,209,0.08)' }]);
    this.latencyPlot = plot(latencyArea, 'ms', [
      { label: 'p50 (ms)', stroke: COLOURS.p50 },
      { label: 'p99 (ms)', stroke: COLOURS.p99 },
    ]);
  }

  push(time, { opsPerSec, p50, p99 }) {
    const keep = (list, value) => {
      list.push(value);
      if (list.length > POINTS) list.shift();
    };
    keep(this.times, time);
    keep(this.ops, opsPerSec);
    keep(this.p50, p50 === null ? null : p50 * 1000);
    keep(this.p99, p99 === null ? null : p99 * 1000);
    this.opsPlot.setData([this.times, this.ops]);
    this.latencyPlot.setData([this.times, this.p50, this.p99]);
    const show = (name, value, text) => {
      this.readouts[name].dataset.value = value === null ? '' : String(value);
      this.readouts[name].textContent = text;
    };
    show('ops', opsPerSec, formatCount(opsPerSec));
    show('p50', p50, formatSeconds(p50));
    show('p99', p99, formatSeconds(p99));
  }

  destroy() {
    this.opsPlot.destroy();
    this.latencyPlot.destroy();
    this.card.remove();
  }
}

/** One BucketChart per bucket in `container`, added and removed as buckets come and go. */
export class Charts {
  constructor(container) {
    this.container = container;
    this.byBucket = new Map();
  }

  /** rates: Map(bucket -> { opsPerSec, p50, p99 }) (metrics.js), at `time` in Unix seconds. */
  update(time, rates) {
    for (const [bucket, chart] of this.byBucket) {
      if (!rates.has(bucket)) {
        chart.destroy();
        this.byBucket.delete(bucket);
      }
    }
    for (const bucket of [...rates.keys()].sort()) {
      let chart = this.byBucket.get(bucket);
      if (!chart) {
        chart = new BucketChart(bucket);
        this.byBucket.set(bucket, chart);
        this.container.append(chart.card);
      }
      chart.push(time, rates.get(bucket));
    }
  }

  clear() {
    for (const chart of this.byBucket.values()) chart.destroy();
    this.byBucket.clear();
  }
}
