using Tern.Client.Exceptions;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>A server that is not Couchbase, or a bucket the user cannot select, ends the bootstrap with a typed error.</summary>
public class BootstrapRefusalTests
{
    [Fact]
    public async Task ARefusedSelectBucketIsBucketNotFoundNamingTheBucket()
    {
        await using var run = BootstrapRun.Start();
        var scram = new ScramServer("SCRAM-SHA512", PeerReplies.Password);
        var second = await run.ReachSecondWriteAsync(scram);

        await run.Server.ReplyAsync(second[0], ResponseStatus.Success, scram.Sign(second[0].Value));
        await run.Server.ReplyAsync(second[1], ResponseStatus.Eaccess);
        await run.Server.ReplyAsync(second[2], ResponseStatus.NoBucket);

        var error = await Assert.ThrowsAsync<BucketNotFoundException>(() => run.Opening);
        Assert.Equal(BootstrapRun.Bucket, error.BucketName);
        // The status is named from the server's own error map.
        Assert.Equal($"bucket 'shop' not found, or the user may not access it: {run.Endpoint} answered SELECT_BUCKET with EACCESS (0x24)",
            error.Message);
        Assert.Empty(run.Maps);
    }

    [Fact]
    public async Task ATemporaryRefusalOfSelectBucketFailsOnlyTheConnection()
    {
        await using var run = BootstrapRun.Start();
        var scram = new ScramServer("SCRAM-SHA512", PeerReplies.Password);
        var second = await run.ReachSecondWriteAsync(scram);

        await run.Server.ReplyAsync(second[0], ResponseStatus.Success, scram.Sign(second[0].Value));
        await run.Server.ReplyAsync(second[1], ResponseStatus.Etmpfail);
        await run.Server.ReplyAsync(second[2], ResponseStatus.NoBucket);

        // Not BucketNotFound, which would close the bucket for good: the pool retries the connection.
        var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => run.Opening);
        Assert.Contains("SELECT_BUCKET 'shop'", error.Message);
        Assert.Contains("retried", error.Message);
    }

    [Fact]
    public async Task ATemporaryRefusalOfTheSaslStepIsNotAWrongPassword()
    {
        await using var run = BootstrapRun.Start();
        var scram = new ScramServer("SCRAM-SHA512", PeerReplies.Password);
        var second = await run.ReachSecondWriteAsync(scram);

        await run.Server.ReplyAsync(second[0], ResponseStatus.Etmpfail);
        await run.Server.ReplyAsync(second[1], ResponseStatus.Eaccess);
        await run.Server.ReplyAsync(second[2], ResponseStatus.Eaccess);

        var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => run.Opening);
        Assert.Contains("could not authenticate 'user'", error.Message);
    }

    [Fact]
    public async Task AServerThatDoesNotKnowHelloIsToldToUseMemcachedScheme()
    {
        await using var run = BootstrapRun.Start();
        var first = await run.Server.ReceiveAsync(4);

        foreach (var request in first)
            await run.Server.ReplyAsync(request, ResponseStatus.UnknownCommand);

        var error = await Assert.ThrowsAsync<ConnectionFailedException>(() => run.Opening);
        Assert.Equal($"{run.Endpoint} answered HELLO with status 0x81: it does not speak the Couchbase protocol " +
            "(for plain memcached use memcached://)", error.Message);
    }
}
