// The bucket table: type, items, memory against quota, ops/s (GET /pools/default/buckets).
import { el } from './dom.js';
import { bucketTypeName, formatBytes, formatCount } from './format.js';

function memoryCell(used, quota) {
  const percent = quota > 0 ? Math.min(100, (100 * used) / quota) : 0;
  return el('div', { className: 'meter' },
    el('div', { className: 'bar' }, el('div', { className: 'fill', style: `width:${percent.toFixed(1)}%` })),
    `${formatBytes(used)} / ${formatBytes(quota)}`);
}

/** Replaces the rows of `tbody` with one per bucket, in name order. */
export function renderBuckets(tbody, buckets) {
  const rows = [...buckets].sort((a, b) => a.name.localeCompare(b.name)).map((b) => {
    const stats = b.basicStats ?? {};
    return el('tr', { dataset: { bucket: b.name } },
      el('td', {}, b.name),
      el('td', {}, bucketTypeName(b.bucketType)),
      el('td', { className: 'num', dataset: { field: 'items' } }, formatCount(stats.itemCount)),
      el('td', {}, memoryCell(stats.memUsed ?? 0, b.quota?.ram ?? 0)),
      el('td', { className: 'num', dataset: { field: 'ops' } }, formatCount(stats.opsPerSec)));
  });
  tbody.replaceChildren(...rows);
}
