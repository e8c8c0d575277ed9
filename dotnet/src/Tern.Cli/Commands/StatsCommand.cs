using System.Text;
using Tern.Client.Protocol;

namespace Tern.Cli.Commands;

/// <summary>
/// stats [GROUP]: prints the server's statistics, one "name value" line each. STAT answers with
/// one frame per statistic, ended by a frame with an empty key; the SDK's operations carry one
/// response each, so this command speaks the protocol over its own socket with the SDK's codec
/// (<see cref="RawConnection"/>; over couchbase:// it logs in with <see cref="ScramLogin"/>).
/// </summary>
public static class StatsCommand
{
    public static async Task<int> RunAsync(CommandContext context)
    {
        context.Args.AtMost(1);
        var group = context.Args.Positionals.Count > 0 ? context.Args.Positionals[0] : "";
        using var timeout = new CancellationTokenSource(context.Timeout);
        var stats = await FetchAsync(context.Target, group, timeout.Token);
        var width = stats.Count == 0 ? 0 : stats.Max(s => s.Name.Length);
        foreach (var (name, value) in stats)
            context.WriteLine($"{name.PadRight(width)}  {value}");
        return ExitCodes.Success;
    }

    /// <summary>
    /// Every (name, value) the server sends for <paramref name="group"/> ("" for the general set).
    /// Over couchbase:// the connection first logs in and selects the target's bucket, so the
    /// general set holds that bucket's statistics.
    /// </summary>
    public static async Task<IReadOnlyList<(string Name, string Value)>> FetchAsync(Target target, string group,
        CancellationToken cancellationToken)
    {
        using var connection = await RawConnection.OpenAsync(target.Server, target.Tls, cancellationToken);
        if (target.Server.IsCouchbase)
        {
            // A client certificate logged the connection in during the TLS handshake.
            if (target.Tls is not { LogsInByCertificate: true })
                await ScramLogin.AuthenticateAsync(connection, target.Server, target.User!, target.Password!, cancellationToken);
            await ScramLogin.SelectBucketAsync(connection, target.Bucket, cancellationToken);
        }
        await connection.SendAsync(Opcode.Stat, group, default, cancellationToken);
        var stats = new List<(string, string)>();
        while (true)
        {
            var reply = await connection.ReceiveAsync(cancellationToken);
            if (reply.Status == ResponseStatus.KeyEnoent && group.Length > 0)
                throw new Client.Exceptions.TernException($"unknown stats group '{group}'");
            if (reply.Status != ResponseStatus.Success)
                throw new Client.Exceptions.TernException($"the server refused STAT: {reply.Status} (0x{(ushort)reply.Status:x2})");
            if (reply.Key.Length == 0)
                return stats;
            stats.Add((Encoding.UTF8.GetString(reply.Key), Encoding.UTF8.GetString(reply.Value)));
        }
    }
}
