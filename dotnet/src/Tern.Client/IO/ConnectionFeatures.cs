using Tern.Client.Protocol;

namespace Tern.Client.IO;

/// <summary>
/// What one connection negotiated during bootstrap: the HELLO features the server acknowledged,
/// the bucket selected on it, and the server's error map. Immutable; bootstrap installs it on the
/// connection before the connection carries operations. Plain memcached connections keep
/// <see cref="Classic"/>: nothing negotiated, no bucket, the built-in error map.
/// </summary>
public sealed record ConnectionFeatures(IReadOnlySet<HelloFeature> Negotiated, string? Bucket, ErrorMap ErrorMap)
{
    public static readonly ConnectionFeatures Classic = new(new HashSet<HelloFeature>(), null, ErrorMap.Default);

    public bool Has(HelloFeature feature) => Negotiated.Contains(feature);

    /// <summary>Keys carry the LEB128 collection-id prefix.</summary>
    public bool Collections => Has(HelloFeature.Collections);
}
