using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Scan;
using Tern.Client.Tests.IO;
using Tern.Client.Tests.Support;
using Tern.Client.Transcoders;

namespace Tern.Client.Tests.Scan;

/// <summary>
/// A range scan continue is answered with several frames on one opaque: Success frames with items,
/// then one RangeScanMore or RangeScanComplete. The connection keeps the operation (and its slot)
/// until that last frame, and other answers on the connection are unaffected.
/// </summary>
public class StreamedAnswerTests
{
    private static readonly byte[] ScanId = Enumerable.Range(1, 16).Select(i => (byte)i).ToArray();

    private static RangeScanContinueOperation NewContinue(DirectConnection direct, TimeSpan timeout)
    {
        var operation = RangeScanContinueOperation.Create(7, ScanId, 50, TimeSpan.Zero, 15_000, JsonTranscoder.Default);
        operation.VBucket = 7; // the dispatcher sets it from PinnedVBucket
        operation.Start(timeout, direct.Time, CancellationToken.None);
        return operation;
    }

    /// <summary>Keys in the keys-only layout: each a LEB128 length, then the key.</summary>
    private static byte[] Keys(params string[] keys) =>
        keys.SelectMany(key => new[] { (byte)key.Length }.Concat(Encoding.UTF8.GetBytes(key))).ToArray();

    private static Task SendItemsAsync(DirectConnection direct, uint opaque, ResponseStatus status, byte[] items) =>
        direct.Server.SendFrameAsync(Magic.Response, (byte)Opcode.RangeScanContinue, (ushort)status, opaque, 0, [],
            [0, 0, 0, (byte)ScanFrame.KeysLayout], [], items);

    [Fact]
    public async Task EveryFrameUpToTheLastStatusFillsOneBatchWhileOtherAnswersPass()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var scan = NewContinue(direct, TimeSpan.FromSeconds(10));
        var get = direct.NewGet("other", TimeSpan.FromSeconds(10));
        direct.Send(scan);
        direct.Send(get);
        var requests = await direct.Server.ReceiveAsync(2);
        Assert.Equal(Opcode.RangeScanContinue, requests[0].Opcode);
        Assert.Equal((ushort)7, requests[0].VBucket);
        Assert.Equal(ScanId, requests[0].Extras[..16].ToArray());

        await SendItemsAsync(direct, requests[0].Opaque, ResponseStatus.Success, Keys("a", "b"));
        await direct.Server.RespondAsync(requests[1], value: "v");
        Assert.Equal("v", Encoding.UTF8.GetString((await get.AsValueTask()).Value));
        await SendItemsAsync(direct, requests[0].Opaque, ResponseStatus.Success, Keys("c"));
        await Poll.Until(() => direct.Connection.InFlight == 1 && !scan.AsValueTask().IsCompleted, "the scan stays in flight");
        await SendItemsAsync(direct, requests[0].Opaque, ResponseStatus.RangeScanMore, Keys("d"));

        var batch = await scan.AsValueTask();
        Assert.False(batch.Complete);
        Assert.Equal(["a", "b", "c", "d"], batch.Items.Select(item => item.Id));
        Assert.All(batch.Items, item => Assert.True(item.IdOnly));
        Assert.Equal(0, direct.Connection.InFlight);
    }

    [Fact]
    public async Task ALastFrameWithoutItemsCompletesTheScan()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var scan = NewContinue(direct, TimeSpan.FromSeconds(10));
        direct.Send(scan);
        var request = (await direct.Server.ReceiveAsync(1))[0];
        await SendItemsAsync(direct, request.Opaque, ResponseStatus.Success, Keys("only"));
        await SendItemsAsync(direct, request.Opaque, ResponseStatus.RangeScanComplete, []);

        var batch = await scan.AsValueTask();
        Assert.True(batch.Complete);
        Assert.Equal(["only"], batch.Items.Select(item => item.Id));
    }

    [Fact]
    public async Task TheDeadlineEndsAStreamMidwayAndLaterFramesAreOrphans()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var scan = NewContinue(direct, TimeSpan.FromSeconds(1));
        direct.Send(scan);
        var request = (await direct.Server.ReceiveAsync(1))[0];
        await SendItemsAsync(direct, request.Opaque, ResponseStatus.Success, Keys("a"));
        await Poll.Until(() => direct.Connection.InFlight == 1, "the first frame arrived");

        direct.Time.Advance(TimeSpan.FromSeconds(2));
        await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => scan.AsValueTask().AsTask());
        Assert.Equal(0, direct.Connection.InFlight);

        // The rest of the answer finds nothing waiting, and the connection goes on serving.
        await SendItemsAsync(direct, request.Opaque, ResponseStatus.Success, Keys("b"));
        await SendItemsAsync(direct, request.Opaque, ResponseStatus.RangeScanComplete, Keys("c"));
        var get = direct.NewGet("after", TimeSpan.FromSeconds(10));
        direct.Send(get);
        await direct.Server.RespondAsync((await direct.Server.ReceiveAsync(1))[0], value: "still");
        Assert.Equal("still", Encoding.UTF8.GetString((await get.AsValueTask()).Value));
    }

    [Fact]
    public async Task AnErrorStatusEndsTheStreamAsTheScansLoss()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var scan = NewContinue(direct, TimeSpan.FromSeconds(10));
        direct.Send(scan);
        var request = (await direct.Server.ReceiveAsync(1))[0];
        await SendItemsAsync(direct, request.Opaque, ResponseStatus.KeyEnoent, []);

        var error = await Assert.ThrowsAsync<ScanLostException>(() => scan.AsValueTask().AsTask());
        Assert.Contains("vbucket 7", error.Message);
        Assert.Equal((ushort)ResponseStatus.KeyEnoent, error.Status);
    }
}
