using System.Text.Json.Nodes;
using Tern.Client.Tests.Support;
using Tern.Client.Transactions;
using Tern.Client.Transcoders;

namespace Tern.Client.Tests.Transactions.Interop;

/// <summary>
/// Tern.Client's transactions and the official Node.js SDK's (npm couchbase 4.7.1, run from
/// compat/lib/tx-interop.mjs) on the same documents of one real ternd: what either commits
/// reads correctly through the other's transactions (JSON and binary), neither shows the
/// other's staged content, and each waits for the other's staged write instead of overwriting it.
/// </summary>
public class NodeInteropTests(CouchbaseFixture fixture) : IClassFixture<CouchbaseFixture>
{
    private static readonly TransactionOptions Options = new() { Timeout = TimeSpan.FromSeconds(30) };
    private static readonly byte[] AllBytes = Enumerable.Range(0, 256).Select(i => (byte)i).ToArray();

    private readonly string _run = Guid.NewGuid().ToString("N")[..8];

    private Collection Collection => fixture.Bucket.DefaultCollection();

    private Tern.Client.Transactions.Transactions Transactions => fixture.Cluster.Transactions;

    private string ConnectionString => fixture.Server.CouchbaseConnectionString;

    [Fact]
    public async Task WhatTernClientCommitsNodeReads()
    {
        var prefix = $"tern-wrote-{_run}";
        await Collection.UpsertAsync($"{prefix}-rep", new { v = 1 });
        await Collection.UpsertAsync($"{prefix}-rem", new { v = 1 });

        await Transactions.RunAsync(async ctx =>
        {
            await ctx.InsertAsync(Collection, $"{prefix}-json", new { n = 1, s = "é" });
            await ctx.InsertAsync(Collection, $"{prefix}-bin", AllBytes);
            await ctx.ReplaceAsync(await ctx.GetAsync(Collection, $"{prefix}-rep"), new { v = 2 });
            await ctx.RemoveAsync(await ctx.GetAsync(Collection, $"{prefix}-rem"));
        }, Options);

        var read = await NodeReadAsync($"{prefix}-json", $"bin:{prefix}-bin", $"{prefix}-rep", $"{prefix}-rem");
        Assert.Equal("""{"n":1,"s":"é"}""", read[$"{prefix}-json"]["json"]!.ToJsonString(UnescapedJson));
        Assert.Equal(Convert.ToBase64String(AllBytes), read[$"{prefix}-bin"]["base64"]!.GetValue<string>());
        Assert.Equal("""{"v":2}""", read[$"{prefix}-rep"]["json"]!.ToJsonString());
        Assert.False(read[$"{prefix}-rem"]["found"]!.GetValue<bool>());
    }

    [Fact]
    public async Task WhatNodeCommitsTernClientReads()
    {
        var prefix = $"node-wrote-{_run}";
        await Collection.UpsertAsync($"{prefix}-rep", new { v = 1 });
        await Collection.UpsertAsync($"{prefix}-rem", new { v = 1 });

        await using (var node = ChildProcess.Node("tx-interop.mjs", "write", ConnectionString, prefix))
        {
            await node.ExpectLineAsync("committed");
            Assert.Equal(0, await node.WaitForExitAsync());
        }

        await Transactions.RunAsync(async ctx =>
        {
            var json = await ctx.GetAsync(Collection, $"{prefix}-json");
            Assert.Equal("é", json.ContentAs<JsonObject>()!["s"]!.GetValue<string>());
            Assert.Equal(AllBytes, (await ctx.GetAsync(Collection, $"{prefix}-bin")).ContentAs<byte[]>());
            Assert.Equal(2, (await ctx.GetAsync(Collection, $"{prefix}-rep")).ContentAs<JsonObject>()!["v"]!.GetValue<int>());
            Assert.Null(await ctx.GetOptionalAsync(Collection, $"{prefix}-rem"));
        }, Options);
        using var binary = await Collection.GetAsync($"{prefix}-bin");
        Assert.Equal(DocumentFlags.Binary, binary.Flags & 0xff000000);
    }

    [Fact]
    public async Task NeitherShowsTheOthersStagedWrites()
    {
        var prefix = $"staged-{_run}";
        await Collection.UpsertAsync($"{prefix}-rep", new { v = 1 });
        await Collection.UpsertAsync($"{prefix}-rem", new { v = 1 });

        // Node stages (two inserts, a replace, a remove) and waits: Tern.Client sees none of it.
        await using (var node = ChildProcess.Node("tx-interop.mjs", "hold-write", ConnectionString, prefix))
        {
            await node.ExpectLineAsync("staged");
            await Transactions.RunAsync(async ctx =>
            {
                Assert.Null(await ctx.GetOptionalAsync(Collection, $"{prefix}-json"));
                Assert.Null(await ctx.GetOptionalAsync(Collection, $"{prefix}-bin"));
                Assert.Equal(1, (await ctx.GetAsync(Collection, $"{prefix}-rep")).ContentAs<JsonObject>()!["v"]!.GetValue<int>());
                Assert.Equal(1, (await ctx.GetAsync(Collection, $"{prefix}-rem")).ContentAs<JsonObject>()!["v"]!.GetValue<int>());
            }, Options);
            await node.WriteLineAsync("roll back");
            await node.ExpectLineAsync("rolled back");
        }

        // Tern.Client stages and waits: Node sees none of it.
        var staged = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var holder = Transactions.RunAsync(async ctx =>
        {
            await ctx.InsertAsync(Collection, $"{prefix}-json", new { n = 1 });
            await ctx.ReplaceAsync(await ctx.GetAsync(Collection, $"{prefix}-rep"), new { v = 2 });
            await ctx.RemoveAsync(await ctx.GetAsync(Collection, $"{prefix}-rem"));
            staged.TrySetResult();
            await release.Task;
        }, Options);
        await staged.Task.WaitAsync(ChildProcess.LineTimeout);
        var read = await NodeReadAsync($"{prefix}-json", $"{prefix}-rep", $"{prefix}-rem");
        release.SetResult();
        await holder;
        Assert.False(read[$"{prefix}-json"]["found"]!.GetValue<bool>());
        Assert.Equal("""{"v":1}""", read[$"{prefix}-rep"]["json"]!.ToJsonString());
        Assert.Equal("""{"v":1}""", read[$"{prefix}-rem"]["json"]!.ToJsonString());
    }

    [Fact]
    public async Task TernClientWaitsForNodesStagedWrite()
    {
        var key = $"node-holds-{_run}";
        await Collection.UpsertAsync(key, new { v = 0 });
        await using var node = ChildProcess.Node("tx-interop.mjs", "hold", ConnectionString, key, "1");
        await node.ExpectLineAsync("staged");

        var attempts = 0;
        var writer = Transactions.RunAsync(async ctx =>
        {
            Interlocked.Increment(ref attempts);
            var doc = await ctx.GetAsync(Collection, key);
            await ctx.ReplaceAsync(doc, new { v = doc.ContentAs<JsonObject>()!["v"]!.GetValue<int>() + 10 });
        }, Options);
        // The writer meets Node's staged change, waits and retries; it cannot finish before Node commits.
        await Poll.Until(() => Volatile.Read(ref attempts) >= 2, "Tern.Client never retried");
        Assert.False(writer.IsCompleted, node.Output);

        await node.WriteLineAsync("commit");
        await node.ExpectLineAsync("committed");
        await writer;
        Assert.Equal(11, await Collection.ValueOf(key));
    }

    [Fact]
    public async Task NodeWaitsForTernClientsStagedWrite()
    {
        var key = $"tern-holds-{_run}";
        await Collection.UpsertAsync(key, new { v = 0 });
        var staged = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var holder = Transactions.RunAsync(async ctx =>
        {
            var doc = await ctx.GetAsync(Collection, key);
            await ctx.ReplaceAsync(doc, new { v = doc.ContentAs<JsonObject>()!["v"]!.GetValue<int>() + 1 });
            staged.TrySetResult();
            await release.Task;
        }, Options);
        await staged.Task.WaitAsync(ChildProcess.LineTimeout);

        await using var node = ChildProcess.Node("tx-interop.mjs", "increment", ConnectionString, key, "10");
        // Node's first attempt meets the staged change, waits its second and gives the attempt up;
        // its next attempt finds the change still staged: it cannot finish before Tern.Client commits.
        await Task.Delay(TimeSpan.FromSeconds(3));
        Assert.False(node.HasExited, node.Output);

        release.SetResult();
        await holder;
        var result = await node.ReadJsonAsync();
        Assert.True(result["ok"]!.GetValue<bool>(), result.ToJsonString());
        Assert.True(result["attempts"]!.GetValue<int>() >= 2, result.ToJsonString());
        Assert.Equal(11, await Collection.ValueOf(key));
    }

    private static readonly System.Text.Json.JsonSerializerOptions UnescapedJson =
        new() { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    /// <summary>Reads the keys through one Node transaction; the answer per key.</summary>
    private async Task<Dictionary<string, JsonObject>> NodeReadAsync(params string[] keys)
    {
        await using var node = ChildProcess.Node("tx-interop.mjs", ["read", ConnectionString, .. keys]);
        var read = new Dictionary<string, JsonObject>();
        foreach (var _ in keys)
        {
            var line = await node.ReadJsonAsync();
            read[line["key"]!.GetValue<string>()] = line;
        }
        Assert.Equal(0, await node.WaitForExitAsync());
        return read;
    }

}
