// Numbers as people read them.

export function formatCount(n) {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

export function formatBytes(n) {
  if (!Number.isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i += 1;
  }
  return `${n.toFixed(i === 0 || n >= 100 ? 0 : 1)} ${units[i]}`;
}

/** A latency given in seconds, in ms or µs. */
export function formatSeconds(s) {
  if (s === null || !Number.isFinite(s)) return '–';
  return s >= 0.001 ? `${(s * 1000).toFixed(2)} ms` : `${(s * 1e6).toFixed(0)} µs`;
}

export function bucketTypeName(bucketType) {
  return { membase: 'couchbase', ephemeral: 'ephemeral', memcached: 'memcached' }[bucketType] ?? bucketType;
}
