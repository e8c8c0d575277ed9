using System.Globalization;
using System.Text.Json;
using Tern.Client.Exceptions;

namespace Tern.Client.Management;

/// <summary>
/// BucketSettings to and from the management port: the form fields of a create or an update, and
/// the bucket JSON of GET /pools/default/buckets[/name]. The enum names are Couchbase's REST words;
/// one table per enum serves both directions.
/// </summary>
internal static class BucketSettingsWire
{
    private static readonly (BucketType Value, string Form, string Json)[] BucketTypes =
        [(BucketType.Couchbase, "couchbase", "membase"), (BucketType.Memcached, "memcached", "memcached"), (BucketType.Ephemeral, "ephemeral", "ephemeral")];

    private static readonly (EvictionPolicyType Value, string Name)[] EvictionPolicies =
    [
        (EvictionPolicyType.ValueOnly, "valueOnly"), (EvictionPolicyType.FullEviction, "fullEviction"),
        (EvictionPolicyType.NoEviction, "noEviction"), (EvictionPolicyType.NotRecentlyUsed, "nruEviction"),
    ];

    private static readonly (CompressionMode Value, string Name)[] CompressionModes =
        [(CompressionMode.Off, "off"), (CompressionMode.Passive, "passive"), (CompressionMode.Active, "active")];

    private static readonly (ConflictResolutionType Value, string Name)[] ConflictResolutions =
        [(ConflictResolutionType.SequenceNumber, "seqno"), (ConflictResolutionType.Timestamp, "lww"), (ConflictResolutionType.Custom, "custom")];

    private static readonly (StorageBackend Value, string Name)[] StorageBackends =
        [(StorageBackend.Couchstore, "couchstore"), (StorageBackend.Magma, "magma")];

    private static readonly (DurabilityLevel Value, string Name)[] DurabilityLevels =
    [
        (DurabilityLevel.None, "none"), (DurabilityLevel.Majority, "majority"),
        (DurabilityLevel.MajorityAndPersistToActive, "majorityAndPersistActive"), (DurabilityLevel.PersistToMajority, "persistToMajority"),
    ];

    /// <summary>The form of POST /pools/default/buckets: every setting that is set, checked first.</summary>
    public static List<KeyValuePair<string, string>> CreateForm(BucketSettings settings)
    {
        Validate(settings);
        var form = new List<KeyValuePair<string, string>>
        {
            new("name", settings.Name),
            new("bucketType", BucketTypes.First(t => t.Value == settings.BucketType).Form),
        };
        AddChangeable(form, settings);
        if (settings.ConflictResolutionType is { } resolution)
            form.Add(new("conflictResolutionType", NameOf(ConflictResolutions, resolution)));
        if (settings.StorageBackend is { } backend)
            form.Add(new("storageBackend", NameOf(StorageBackends, backend)));
        if (settings.NumVBuckets is { } vbuckets)
            form.Add(new("numVBuckets", vbuckets.ToString(CultureInfo.InvariantCulture)));
        return form;
    }

    /// <summary>The form of POST /pools/default/buckets/name: the settings a bucket may change after creation.</summary>
    public static List<KeyValuePair<string, string>> UpdateForm(BucketSettings settings)
    {
        Validate(settings);
        var form = new List<KeyValuePair<string, string>>();
        AddChangeable(form, settings);
        return form;
    }

    private static void AddChangeable(List<KeyValuePair<string, string>> form, BucketSettings settings)
    {
        form.Add(new("ramQuotaMB", settings.RamQuotaMB.ToString(CultureInfo.InvariantCulture)));
        form.Add(new("flushEnabled", settings.FlushEnabled ? "1" : "0"));
        if (settings.BucketType != BucketType.Memcached)
            form.Add(new("replicaNumber", settings.NumReplicas.ToString(CultureInfo.InvariantCulture)));
        if (settings.ReplicaIndexes)
            form.Add(new("replicaIndex", "1"));
        if (settings.EvictionPolicy is { } eviction)
            form.Add(new("evictionPolicy", NameOf(EvictionPolicies, eviction)));
        form.Add(new("maxTTL", settings.MaxTtl.ToString(CultureInfo.InvariantCulture)));
        if (settings.CompressionMode is { } compression)
            form.Add(new("compressionMode", NameOf(CompressionModes, compression)));
        if (settings.BucketType != BucketType.Memcached)
            form.Add(new("durabilityMinLevel", NameOf(DurabilityLevels, settings.DurabilityMinimumLevel)));
    }

    // What the server would refuse anyway, said before a request is sent and in the SDK's words.
    private static void Validate(BucketSettings settings)
    {
        if (string.IsNullOrEmpty(settings.Name))
            throw new InvalidArgumentException("BucketSettings.Name is empty: a bucket needs a name");
        if (settings.RamQuotaMB <= 0)
            throw new InvalidArgumentException($"bucket '{settings.Name}': RamQuotaMB must be positive (got {settings.RamQuotaMB})");
        if (settings.MaxTtl < 0)
            throw new InvalidArgumentException($"bucket '{settings.Name}': MaxTtl must be 0 (no limit) or positive (got {settings.MaxTtl})");
        if (settings.EvictionPolicy is { } eviction)
        {
            var persistent = eviction is EvictionPolicyType.ValueOnly or EvictionPolicyType.FullEviction;
            if (settings.BucketType == BucketType.Memcached
                || (settings.BucketType == BucketType.Couchbase) != persistent)
                throw new InvalidArgumentException(
                    $"bucket '{settings.Name}': eviction policy {eviction} does not apply to a {settings.BucketType} bucket " +
                    "(couchbase: ValueOnly or FullEviction; ephemeral: NoEviction or NotRecentlyUsed; memcached: none)");
        }
    }

    /// <summary>Reads one bucket of GET /pools/default/buckets[/name]; <see cref="FormatException"/> names what is wrong.</summary>
    public static BucketSettings Parse(JsonElement bucket)
    {
        if (bucket.ValueKind != JsonValueKind.Object)
            throw new FormatException("a bucket is not a JSON object");
        var name = StringOf(bucket, "name") ?? throw new FormatException("a bucket has no \"name\"");
        var type = StringOf(bucket, "bucketType") ?? throw new FormatException($"bucket '{name}' has no \"bucketType\"");
        var settings = new BucketSettings
        {
            Name = name,
            BucketType = ValueOf(BucketTypes.Select(t => (t.Value, t.Json)).ToArray(), type, "bucketType"),
            FlushEnabled = bucket.TryGetProperty("controllers", out var controllers)
                           && controllers.ValueKind == JsonValueKind.Object && controllers.TryGetProperty("flush", out _),
            NumReplicas = (int)(NumberOf(bucket, "replicaNumber") ?? 0),
            ReplicaIndexes = bucket.TryGetProperty("replicaIndex", out var index) && index.ValueKind == JsonValueKind.True,
            MaxTtl = (int)(NumberOf(bucket, "maxTTL") ?? 0),
        };
        if (bucket.TryGetProperty("quota", out var quota) && quota.ValueKind == JsonValueKind.Object)
            settings.RamQuotaMB = (NumberOf(quota, "rawRAM") ?? NumberOf(quota, "ram") ?? 0) / (1024 * 1024);
        if (StringOf(bucket, "evictionPolicy") is { } eviction)
            settings.EvictionPolicy = ValueOf(EvictionPolicies, eviction, "evictionPolicy");
        if (StringOf(bucket, "compressionMode") is { } compression)
            settings.CompressionMode = ValueOf(CompressionModes, compression, "compressionMode");
        if (StringOf(bucket, "conflictResolutionType") is { } resolution)
            settings.ConflictResolutionType = ValueOf(ConflictResolutions, resolution, "conflictResolutionType");
        if (StringOf(bucket, "storageBackend") is { } backend)
            settings.StorageBackend = ValueOf(StorageBackends, backend, "storageBackend");
        if (StringOf(bucket, "durabilityMinLevel") is { } durability)
            settings.DurabilityMinimumLevel = ValueOf(DurabilityLevels, durability, "durabilityMinLevel");
        if (NumberOf(bucket, "numVBuckets") is { } vbuckets)
            settings.NumVBuckets = (uint)vbuckets;
        return settings;
    }

    private static string NameOf<T>((T Value, string Name)[] table, T value) where T : struct, Enum =>
        table.First(e => EqualityComparer<T>.Default.Equals(e.Value, value)).Name;

    private static T ValueOf<T>((T Value, string Name)[] table, string name, string field) where T : struct, Enum
    {
        foreach (var (value, text) in table)
        {
            if (text == name)
                return value;
        }
        throw new FormatException($"\"{field}\" is \"{name}\", which this SDK does not know");
    }

    private static string? StringOf(JsonElement element, string property)
    {
        if (!element.TryGetProperty(property, out var value) || value.ValueKind == JsonValueKind.Null)
            return null;
        return value.ValueKind == JsonValueKind.String ? value.GetString() : throw new FormatException($"\"{property}\" is not a string");
    }

    private static long? NumberOf(JsonElement element, string property)
    {
        if (!element.TryGetProperty(property, out var value) || value.ValueKind == JsonValueKind.Null)
            return null;
        // Couchbase sends some sizes as floating-point numbers.
        if (value.ValueKind == JsonValueKind.Number)
            return value.TryGetInt64(out var whole) ? whole : (long)value.GetDouble();
        throw new FormatException($"\"{property}\" is not a number");
    }
}
