// The REST paths the console uses (Couchbase's management paths), with every name
// encoded as one path segment.
const seg = encodeURIComponent;

export const POOLS = '/pools';
export const METRICS = '/metrics';
export const BUCKETS = '/pools/default/buckets';

export const scopes = (bucket) => `${BUCKETS}/${seg(bucket)}/scopes`;
export const scope = (bucket, name) => `${scopes(bucket)}/${seg(name)}`;
export const collections = (bucket, scopeName) => `${scope(bucket, scopeName)}/collections`;
export const collection = (bucket, scopeName, name) => `${collections(bucket, scopeName)}/${seg(name)}`;

const docs = ({ bucket, scope: s, collection: c }) => `${collection(bucket, s, c)}/docs`;

/** One page of keys after `startAfter` (null: from the first). */
export function docPage(where, limit, startAfter) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (startAfter !== null && startAfter !== undefined) query.set('startAfter', startAfter);
  return `${docs(where)}?${query}`;
}

export const doc = (where, id) => `${docs(where)}/${seg(id)}`;
