using System.Globalization;

namespace Tern.Benchmarks.Sdk;

/// <summary>One server to load: a label for the table and a connection string.</summary>
internal sealed record SdkTarget(string Name, string ConnectionString)
{
    /// <summary>"couchbase", "couchbases" or "memcached" (the connection string's scheme; "tern" for tern://).</summary>
    public string Scheme => ConnectionString[..ConnectionString.IndexOf("://", StringComparison.Ordinal)];

    /// <summary>couchbase:// or couchbases://: logs in.</summary>
    public bool IsCouchbase => Scheme is "couchbase" or "couchbases";
}

/// <summary>
/// What `Tern.Benchmarks sdk` runs: every target (name=connection-string, repeatable `--target`;
/// host:port alone means tern://) gets the get/upsert mix at each concurrency, each measured for
/// `--seconds` after a `--warmup` run. compat/bench/sdk-load.mjs takes the same load options.
/// </summary>
internal sealed record SdkLoadOptions(
    IReadOnlyList<SdkTarget> Targets,
    IReadOnlyList<int> Concurrencies,
    double Seconds,
    double WarmupSeconds,
    int ValueSize,
    int KeyCount,
    int GetPercent,
    string UserName,
    string Password,
    string BucketName,
    bool Json,
    bool LoadOnly,
    string? CaFile = null)
{
    public const string Usage =
        "sdk --target NAME=couchbase://HOST:PORT|memcached://HOST:PORT|HOST:PORT ... [--concurrency N[,N...]] " +
        "[--seconds S] [--warmup S] [--value-size B] [--keys N] [--gets PERCENT] [--user U] [--password P] " +
        "[--bucket B] [--cacert FILE (couchbases://: the CA to trust)] [--json] [--load-only]";

    public static SdkLoadOptions Parse(string[] args)
    {
        var targets = new List<SdkTarget>();
        var concurrencies = new List<int> { 64 };
        double seconds = 10, warmup = 2;
        int valueSize = 256, keyCount = 10_000, getPercent = 90;
        string userName = "Administrator", password = "password", bucket = "default";
        string? caFile = null;
        bool json = false, loadOnly = false;
        for (var i = 0; i < args.Length; i++)
        {
            switch (args[i])
            {
                case "--json":
                    json = true;
                    continue;
                case "--load-only":
                    loadOnly = true;
                    continue;
            }
            var value = i + 1 < args.Length ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            switch (args[i])
            {
                case "--target":
                    var equals = value.IndexOf('=');
                    var (name, address) = equals > 0 ? (value[..equals], value[(equals + 1)..]) : (value, value);
                    targets.Add(new SdkTarget(name, address.Contains("://", StringComparison.Ordinal) ? address : $"tern://{address}"));
                    break;
                case "--concurrency":
                case "--in-flight":
                    concurrencies = value.Split(',').Select(c => Positive(args[i], c)).ToList();
                    break;
                case "--seconds":
                    seconds = double.Parse(value, CultureInfo.InvariantCulture);
                    break;
                case "--warmup":
                    warmup = double.Parse(value, CultureInfo.InvariantCulture);
                    break;
                case "--value-size":
                    valueSize = Positive(args[i], value);
                    break;
                case "--keys":
                    keyCount = Positive(args[i], value);
                    break;
                case "--gets":
                    getPercent = int.Parse(value, CultureInfo.InvariantCulture);
                    if (getPercent is < 0 or > 100)
                        throw new ArgumentException("--gets: a percentage, 0 to 100");
                    break;
                case "--user":
                    userName = value;
                    break;
                case "--password":
                    password = value;
                    break;
                case "--bucket":
                    bucket = value;
                    break;
                case "--cacert":
                    caFile = value;
                    break;
                default:
                    throw new ArgumentException($"unknown option {args[i]}; usage: {Usage}");
            }
            i++;
        }
        if (targets.Count == 0)
            throw new ArgumentException($"sdk mode needs at least one --target; usage: {Usage}");
        if (valueSize < BenchDocument.MinimumSize)
            throw new ArgumentException($"--value-size: at least {BenchDocument.MinimumSize} bytes");
        return new SdkLoadOptions(targets, concurrencies, seconds, warmup, valueSize, keyCount, getPercent,
            userName, password, bucket, json, loadOnly, caFile);
    }

    private static int Positive(string option, string text)
    {
        var value = int.Parse(text, CultureInfo.InvariantCulture);
        return value > 0 ? value : throw new ArgumentException($"{option}: a whole number from 1");
    }
}
