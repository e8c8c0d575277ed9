using System.Text;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Tests.IO;

/// <summary>A batch leaves in one socket send, and its answers come back in request order.</summary>
public class BatchSendTests
{
    [Fact]
    public async Task FourRequestsLeaveInOneSendAndAreAnsweredInRequestOrder()
    {
        await using var direct = await DirectConnection.OpenAsync();
        var (server, connection) = (direct.Server, direct.Connection);
        var sendsBefore = connection.SendCalls;
        string[] keys = ["first", "second", "third", "fourth"];

        var batch = connection.SendBatchAsync(
            keys.Select(k => new RawRequest(Opcode.Get, Key: Encoding.UTF8.GetBytes(k))).ToList(), TimeSpan.FromMinutes(1)).AsTask();
        var requests = await server.ReceiveAsync(4);
        Assert.Equal(1, connection.SendCalls - sendsBefore);
        Assert.Equal(keys, requests.Select(r => r.Key));
        // Answered backwards, with one failed status: each answer still lands at its request's index.
        foreach (var request in requests.Reverse())
            await server.RespondAsync(request, request.Key == "third" ? ResponseStatus.KeyEnoent : ResponseStatus.Success,
                value: "value of " + request.Key);
        var responses = await batch;

        Assert.Equal(keys.Select(k => "value of " + k), responses.Select(r => Encoding.UTF8.GetString(r.Value)));
        Assert.Equal([ResponseStatus.Success, ResponseStatus.Success, ResponseStatus.KeyEnoent, ResponseStatus.Success],
            responses.Select(r => r.Status));
        Assert.Equal(0, connection.InFlight);
    }

    [Fact]
    public async Task ABatchOnAFailedConnectionThrowsTheConnectionsFailure()
    {
        await using var direct = await DirectConnection.OpenAsync();
        direct.Connection.Fail(new IOException("dropped by the test"));

        var error = await Assert.ThrowsAsync<Tern.Client.Exceptions.ConnectionFailedException>(() => direct.Connection.SendBatchAsync(
            [new RawRequest(Opcode.Noop), new RawRequest(Opcode.Version)], TimeSpan.FromMinutes(1)).AsTask());

        Assert.Contains("(dropped by the test); the request was not sent", error.Message);
    }
}
