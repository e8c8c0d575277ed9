namespace Tern.Benchmarks.Sdk;

/// <summary>
/// What `Tern.Benchmarks sdk` runs: every target (name=host:port, repeatable `--target`) gets
/// Get and Upsert at each concurrency, each measured for `--seconds` after a `--warmup` run.
/// </summary>
internal sealed record SdkLoadOptions(
    IReadOnlyList<(string Name, string Address)> Targets,
    IReadOnlyList<int> Concurrencies,
    double Seconds,
    double WarmupSeconds,
    int ValueSize,
    int KeyCount)
{
    public static SdkLoadOptions Parse(string[] args)
    {
        var targets = new List<(string, string)>();
        var concurrencies = new List<int> { 1, 64 };
        double seconds = 5, warmup = 1;
        int valueSize = 128, keyCount = 10_000;
        for (var i = 0; i < args.Length; i++)
        {
            var value = i + 1 < args.Length ? args[i + 1] : throw new ArgumentException($"{args[i]} needs a value");
            switch (args[i])
            {
                case "--target":
                    var equals = value.IndexOf('=');
                    targets.Add(equals > 0 ? (value[..equals], value[(equals + 1)..]) : (value, value));
                    break;
                case "--concurrency":
                    concurrencies = value.Split(',').Select(int.Parse).ToList();
                    break;
                case "--seconds":
                    seconds = double.Parse(value);
                    break;
                case "--warmup":
                    warmup = double.Parse(value);
                    break;
                case "--value-size":
                    valueSize = int.Parse(value);
                    break;
                case "--keys":
                    keyCount = int.Parse(value);
                    break;
                default:
                    throw new ArgumentException($"unknown option {args[i]}");
            }
            i++;
        }
        if (targets.Count == 0)
            throw new ArgumentException("sdk mode needs at least one --target name=host:port");
        return new SdkLoadOptions(targets, concurrencies, seconds, warmup, valueSize, keyCount);
    }
}
