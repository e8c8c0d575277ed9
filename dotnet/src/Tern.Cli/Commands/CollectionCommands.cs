using System.Globalization;
using Tern.Client.Management;

namespace Tern.Cli.Commands;

/// <summary>
/// collection list | create SCOPE[.COLLECTION] [--max-ttl S] | drop SCOPE[.COLLECTION], in --bucket:
/// the SDK's collection manager over the management port (couchbase:// only). A name without a
/// dot is a scope; create makes a collection's scope first when it does not exist yet.
/// </summary>
public static class CollectionCommands
{
    private static readonly string[] Actions = ["list", "create", "drop"];

    public static async Task<int> RunAsync(CommandContext context)
    {
        var action = context.Args.Required(0, $"ACTION ({string.Join(", ", Actions)})");
        return action switch
        {
            "list" => await ListAsync(context),
            "create" => await CreateAsync(context),
            "drop" => await DropAsync(context),
            _ => throw new UsageException($"collection: unknown action '{action}' (expected {string.Join(", ", Actions)})"),
        };
    }

    private static async Task<int> ListAsync(CommandContext context)
    {
        context.Args.AtMost(1);
        var manager = await ManagerAsync(context);
        var rows = new List<string[]>();
        foreach (var scope in (await manager.GetAllScopesAsync()).OrderBy(s => s.Name, StringComparer.Ordinal))
        {
            if (scope.Collections.Count == 0)
                rows.Add([scope.Name, "-", "-"]);
            foreach (var collection in scope.Collections.OrderBy(c => c.Name, StringComparer.Ordinal))
                rows.Add([scope.Name, collection.Name, MaxTtlText(collection.MaxExpiry)]);
        }
        Table.Write(context, ["SCOPE", "COLLECTION", "MAX_TTL"], rows);
        return ExitCodes.Success;
    }

    private static async Task<int> CreateAsync(CommandContext context)
    {
        var (scope, collection) = Path(context);
        if (collection is null && context.Args.Option("max-ttl") is not null)
            throw new UsageException("--max-ttl applies to a collection: give SCOPE.COLLECTION");
        var settings = new CreateCollectionSettings(context.Args.Option("max-ttl") is null
            ? null
            : TimeSpan.FromSeconds(context.Args.UInt32Option("max-ttl", 0)));
        var manager = await ManagerAsync(context);
        var bucket = context.Target.Bucket;
        if (collection is null)
        {
            await manager.CreateScopeAsync(scope);
            context.WriteLine($"created scope '{scope}' in bucket '{bucket}'");
            return ExitCodes.Success;
        }
        if (!(await manager.GetAllScopesAsync()).Any(s => s.Name == scope))
        {
            await manager.CreateScopeAsync(scope);
            context.WriteLine($"created scope '{scope}' in bucket '{bucket}'");
        }
        await manager.CreateCollectionAsync(scope, collection, settings);
        context.WriteLine($"created collection '{scope}.{collection}' in bucket '{bucket}'");
        return ExitCodes.Success;
    }

    private static async Task<int> DropAsync(CommandContext context)
    {
        var (scope, collection) = Path(context);
        var manager = await ManagerAsync(context);
        var bucket = context.Target.Bucket;
        if (collection is null)
        {
            await manager.DropScopeAsync(scope);
            context.WriteLine($"dropped scope '{scope}' and its collections from bucket '{bucket}'");
        }
        else
        {
            await manager.DropCollectionAsync(scope, collection);
            context.WriteLine($"dropped collection '{scope}.{collection}' from bucket '{bucket}'");
        }
        return ExitCodes.Success;
    }

    private static (string Scope, string? Collection) Path(CommandContext context)
    {
        var text = context.Args.Required(1, "SCOPE or SCOPE.COLLECTION");
        context.Args.AtMost(2);
        var parts = text.Split('.');
        return parts switch
        {
            [{ Length: > 0 } scope] => (scope, null),
            [{ Length: > 0 } scope, { Length: > 0 } collection] => (scope, collection),
            _ => throw new UsageException($"collection: '{text}' is not SCOPE or SCOPE.COLLECTION (e.g. app or app.users)"),
        };
    }

    private static async Task<ICollectionManager> ManagerAsync(CommandContext context) =>
        (await context.ConnectForManagementAsync("tern collection")).Collections;

    private static string MaxTtlText(TimeSpan? maxExpiry) => maxExpiry switch
    {
        null => "-",
        { } expiry when expiry < TimeSpan.Zero => "never",
        { } expiry => ((long)expiry.TotalSeconds).ToString(CultureInfo.InvariantCulture),
    };
}
