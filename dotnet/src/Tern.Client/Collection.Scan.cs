using Tern.Client.Scan;

namespace Tern.Client;

public sealed partial class Collection
{
    /// <summary>
    /// Reads the collection's documents (or keys) with KV range scans, without a query service: a
    /// <see cref="RangeScan"/> or <see cref="PrefixScan"/> returns each vbucket's documents in key
    /// order (vbuckets in no particular order), a <see cref="SamplingScan"/> a random sample.
    /// Nothing is sent until the caller enumerates; stopping early (break, dispose) cancels the
    /// scans still open on the servers. Needs couchbase:// and a bucket that lists the
    /// <c>rangeScan</c> capability (ternd, Couchbase Server 7.6 and later), else
    /// <see cref="Exceptions.FeatureNotAvailableException"/>; an unknown collection raises
    /// <see cref="Exceptions.CollectionNotFoundException"/>.
    /// </summary>
    public IAsyncEnumerable<IScanResult> ScanAsync(IScanType scanType, ScanOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(scanType);
        return new RangeScanRunner(_keyspace, _options, scanType, options ?? Defaults<ScanOptions>.Value).RunAsync();
    }
}
