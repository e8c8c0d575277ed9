using System.Globalization;
using Tern.Client;
using Tern.Client.Management;

namespace Tern.Cli.Commands;

/// <summary>
/// bucket list | create NAME [settings] | drop NAME | flush NAME: the SDK's bucket manager over
/// the management port (couchbase:// only), one line of output per bucket or change.
/// </summary>
public static class BucketCommands
{
    private static readonly string[] Actions = ["list", "create", "drop", "flush"];

    public static async Task<int> RunAsync(CommandContext context)
    {
        var action = context.Args.Required(0, $"ACTION ({string.Join(", ", Actions)})");
        return action switch
        {
            "list" => await ListAsync(context),
            "create" => await CreateAsync(context),
            "drop" => await ChangeAsync(context, "dropped", (manager, name) => manager.DropBucketAsync(name)),
            "flush" => await ChangeAsync(context, "flushed", (manager, name) => manager.FlushBucketAsync(name)),
            _ => throw new UsageException($"bucket: unknown action '{action}' (expected {string.Join(", ", Actions)})"),
        };
    }

    private static async Task<int> ListAsync(CommandContext context)
    {
        context.Args.AtMost(1);
        var manager = await ManagerAsync(context);
        var buckets = await manager.GetAllBucketsAsync();
        var rows = buckets.Values.OrderBy(b => b.Name, StringComparer.Ordinal).Select(b => new[]
        {
            b.Name, TypeName(b.BucketType), b.RamQuotaMB.ToString(CultureInfo.InvariantCulture), b.FlushEnabled ? "on" : "off",
            b.MaxTtl.ToString(CultureInfo.InvariantCulture), b.EvictionPolicy?.ToString() ?? "-", b.DurabilityMinimumLevel.ToString(),
        });
        Table.Write(context, ["NAME", "TYPE", "RAM_MB", "FLUSH", "MAX_TTL", "EVICTION", "MIN_DURABILITY"], rows);
        return ExitCodes.Success;
    }

    private static async Task<int> CreateAsync(CommandContext context)
    {
        var name = context.Args.Required(1, "NAME");
        context.Args.AtMost(2);
        var type = context.Args.Option("type") ?? "couchbase";
        var settings = new BucketSettings
        {
            Name = name,
            BucketType = type switch
            {
                "couchbase" => BucketType.Couchbase,
                "ephemeral" => BucketType.Ephemeral,
                "memcached" => BucketType.Memcached,
                _ => throw new UsageException($"--type must be couchbase, ephemeral or memcached, got '{type}'"),
            },
            RamQuotaMB = context.Args.PositiveOption("ram-mb", 100),
            FlushEnabled = context.Args.Has("flush"),
            MaxTtl = (int)Math.Min(context.Args.UInt32Option("max-ttl", 0), int.MaxValue),
            EvictionPolicy = context.Args.Option("eviction") is { } eviction ? Named<EvictionPolicyType>("eviction", eviction) : null,
            DurabilityMinimumLevel = context.Args.Option("durability") is { } level ? Named<DurabilityLevel>("durability", level) : DurabilityLevel.None,
        };
        var manager = await ManagerAsync(context);
        await manager.CreateBucketAsync(settings);
        context.WriteLine($"created bucket '{name}' ({type}, {settings.RamQuotaMB} MiB, flush {(settings.FlushEnabled ? "on" : "off")})");
        return ExitCodes.Success;
    }

    private static async Task<int> ChangeAsync(CommandContext context, string done, Func<IBucketManager, string, Task> change)
    {
        var name = context.Args.Required(1, "NAME");
        context.Args.AtMost(2);
        await change(await ManagerAsync(context), name);
        context.WriteLine($"{done} bucket '{name}'");
        return ExitCodes.Success;
    }

    private static async Task<IBucketManager> ManagerAsync(CommandContext context)
    {
        await context.ConnectForManagementAsync("tern bucket");
        return (await context.ConnectClusterAsync()).Buckets;
    }

    private static string TypeName(BucketType type) => type.ToString().ToLowerInvariant();

    // An enum value by its name, case-insensitive: --eviction fullEviction, --durability majority.
    private static T Named<T>(string option, string text) where T : struct, Enum =>
        text.Length > 0 && char.IsLetter(text[0]) && Enum.TryParse<T>(text, ignoreCase: true, out var value)
            ? value
            : throw new UsageException($"--{option} must be one of {string.Join(", ", Enum.GetNames<T>())}, got '{text}'");
}
