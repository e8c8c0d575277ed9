using System.Net.Sockets;
using System.Text;
using Tern.Client.Protocol;

namespace Tern.Cli.Commands;

/// <summary>
/// stats [GROUP]: prints the server's statistics, one "name value" line each. STAT answers with
/// one frame per statistic, ended by a frame with an empty key; the SDK's operations carry one
/// response each, so this command speaks the protocol over its own socket with the SDK's codec.
/// </summary>
public static class StatsCommand
{
    private const byte StatOpcode = 0x10;

    public static async Task<int> RunAsync(CommandContext context)
    {
        context.Args.AtMost(1);
        var group = context.Args.Positionals.Count > 0 ? context.Args.Positionals[0] : "";
        using var timeout = new CancellationTokenSource(context.Timeout);
        var stats = await FetchAsync(context.Server, group, timeout.Token);
        var width = stats.Count == 0 ? 0 : stats.Max(s => s.Name.Length);
        foreach (var (name, value) in stats)
            context.WriteLine($"{name.PadRight(width)}  {value}");
        return ExitCodes.Success;
    }

    /// <summary>Every (name, value) the server sends for <paramref name="group"/> ("" for the general set).</summary>
    public static async Task<IReadOnlyList<(string Name, string Value)>> FetchAsync(ServerAddress server, string group,
        CancellationToken cancellationToken)
    {
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        try
        {
            await socket.ConnectAsync(server.Host, server.Port, cancellationToken);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw new SocketException((int)SocketError.TimedOut);
        }
        await socket.SendAsync(EncodeRequest(group), cancellationToken);

        var stats = new List<(string, string)>();
        var buffer = new byte[64 * 1024];
        var filled = 0;
        while (true)
        {
            var read = await socket.ReceiveAsync(buffer.AsMemory(filled), cancellationToken);
            if (read == 0)
                throw new IOException("the server closed the connection before the statistics ended");
            filled += read;
            var consumed = 0;
            while (TryTakeStat(buffer.AsSpan(consumed, filled - consumed), group, out var size, out var stat))
            {
                consumed += size;
                if (stat is null)
                    return stats;
                stats.Add(stat.Value);
            }
            buffer.AsSpan(consumed, filled - consumed).CopyTo(buffer);
            filled -= consumed;
            if (filled == buffer.Length)
                Array.Resize(ref buffer, buffer.Length * 2);
        }
    }

    private static byte[] EncodeRequest(string group)
    {
        var key = Encoding.UTF8.GetBytes(group);
        var request = new byte[FrameCodec.EncodedSize(0, 0, key.Length, 0)];
        FrameCodec.Encode(request, (byte)Magic.Request, StatOpcode, 0, 0, opaque: 1, cas: 0, [], [], key, []);
        return request;
    }

    /// <summary>
    /// Decodes one frame from the front of <paramref name="bytes"/>: false if it is incomplete;
    /// <paramref name="stat"/> is null for the terminating frame. A failed status throws.
    /// </summary>
    private static bool TryTakeStat(ReadOnlySpan<byte> bytes, string group, out int size, out (string, string)? stat)
    {
        size = 0;
        stat = null;
        var result = FrameCodec.TryDecode(bytes, out var frame);
        if (result == DecodeResult.NeedMore)
            return false;
        if (result != DecodeResult.Ok)
            throw new IOException($"the server sent a malformed frame ({result})");
        size = frame.Size;
        var status = (ResponseStatus)frame.Header.VBucketOrStatus;
        if (status == ResponseStatus.KeyNotFound && group.Length > 0)
            throw new Client.Exceptions.TernException($"unknown stats group '{group}'");
        if (status != ResponseStatus.Success)
            throw new Client.Exceptions.TernException($"the server refused STAT: {status} (0x{(ushort)status:x2})");
        if (frame.Key.Length > 0)
            stat = (Encoding.UTF8.GetString(frame.Key), Encoding.UTF8.GetString(frame.Value));
        return true;
    }
}
