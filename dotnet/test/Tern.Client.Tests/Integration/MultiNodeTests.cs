using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.Locators;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Integration;

/// <summary>A memcached:// pool of two real servers, keys spread by ketama.</summary>
[Trait("Server", "memcached")]
public sealed class MultiNodeTests : IAsyncLifetime
{
    private ServerProcess _first = null!;
    private ServerProcess _second = null!;

    public async Task InitializeAsync()
    {
        _first = await ServerProcess.StartMemcachedAsync();
        _second = await ServerProcess.StartMemcachedAsync();
    }

    public async Task DisposeAsync()
    {
        await _first.DisposeAsync();
        await _second.DisposeAsync();
    }

    [Fact]
    public async Task EachKeyIsStoredOnTheServerKetamaChooses()
    {
        await using var pool = await Cluster.ConnectAsync($"memcached://127.0.0.1:{_first.Port},127.0.0.1:{_second.Port}");
        await using var onlyFirst = await Cluster.ConnectAsync(_first.ConnectionString);
        await using var onlySecond = await Cluster.ConnectAsync(_second.ConnectionString);
        var ring = new KetamaLocator([("127.0.0.1", _first.Port), ("127.0.0.1", _second.Port)]);
        var keys = Enumerable.Range(0, 200).Select(i => $"spread-{i}").ToArray();

        await Task.WhenAll(keys.Select(k => pool.Bucket("b").DefaultCollection().UpsertAsync(k, k).AsTask()));

        var perServer = new int[2];
        foreach (var key in keys)
        {
            var node = ring.Locate(Encoding.UTF8.GetBytes(key)).NodeIndex;
            perServer[node]++;
            var onFirst = (await onlyFirst.Bucket("b").DefaultCollection().ExistsAsync(key)).Exists;
            var onSecond = (await onlySecond.Bucket("b").DefaultCollection().ExistsAsync(key)).Exists;
            Assert.Equal((node == 0, node == 1), (onFirst, onSecond));
        }
        Assert.All(perServer, count => Assert.InRange(count, 40, 160));
    }

    [Fact]
    public async Task KeysOnASurvivingServerKeepWorkingWhenTheOtherDies()
    {
        await using var pool = await Cluster.ConnectAsync($"memcached://127.0.0.1:{_first.Port},127.0.0.1:{_second.Port}",
            new ClusterOptions { KvTimeout = TimeSpan.FromSeconds(10) });
        var collection = pool.Bucket("b").DefaultCollection();
        var ring = new KetamaLocator([("127.0.0.1", _first.Port), ("127.0.0.1", _second.Port)]);
        var keys = Enumerable.Range(0, 50).Select(i => $"survivor-{i}").ToArray();
        var onSecond = keys.Where(k => ring.Locate(Encoding.UTF8.GetBytes(k)).NodeIndex == 1).ToArray();
        var onFirst = keys.Except(onSecond).ToArray();

        _first.Kill();

        foreach (var key in onSecond)
            await collection.UpsertAsync(key, "v");
        foreach (var key in onFirst.Take(3))
        {
            var error = await Record.ExceptionAsync(async () => await collection.UpsertAsync(key, "v"));
            Assert.True(error is ConnectionFailedException or NodeUnavailableException, $"unexpected {error}");
        }
    }
}
