using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Time.Testing;
using Tern.Client.Couchbase;
using Tern.Client.IO;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Couchbase.Unit;

/// <summary>
/// One real <see cref="Connection"/> opening to a <see cref="FakeServer"/> with a
/// <see cref="CouchbaseBootstrap"/> as its only initializer: the test plays the server's side of
/// the bootstrap, then awaits <see cref="Opening"/>. The clock is fake and never moved, so nothing
/// times out unless the test says so.
/// </summary>
internal sealed class BootstrapRun : IAsyncDisposable
{
    public const string Bucket = "shop";

    /// <summary>What a server that knows everything acknowledges of what the SDK asks for.</summary>
    public static readonly HelloFeature[] Acknowledged =
        [HelloFeature.TcpNoDelay, HelloFeature.Xerror, HelloFeature.SelectBucket, HelloFeature.Json, HelloFeature.Collections];

    private readonly OrphanReporter _orphans;
    private readonly Task<Connection> _opening;

    private BootstrapRun(CouchbaseBootstrap bootstrap, List<(ClusterMap, ConnectionFeatures)> maps)
    {
        Bootstrap = bootstrap;
        Maps = maps;
        var time = new FakeTimeProvider();
        _orphans = new OrphanReporter(NullLogger.Instance, TimeSpan.FromHours(1), 4, time);
        var settings = new ConnectionSettings(64, TimeSpan.FromSeconds(10), TimeSpan.FromMilliseconds(10), [bootstrap], _orphans,
            NullLogger.Instance, time);
        Server = new FakeServer();
        _opening = Connection.OpenAsync("127.0.0.1", Server.Port, settings, CancellationToken.None);
    }

    public CouchbaseBootstrap Bootstrap { get; }

    public FakeServer Server { get; }

    /// <summary>The connection, once bootstrapped; or the bootstrap's failure.</summary>
    public Task<Connection> Opening => _opening.WaitAsync(SafetyNet.Limit);

    public string Endpoint => $"127.0.0.1:{Server.Port}";

    /// <summary>Maps the bootstrap handed over (to this and earlier runs of the same bootstrap), in order.</summary>
    public List<(ClusterMap Map, ConnectionFeatures Features)> Maps { get; }

    /// <summary>Starts a bootstrap of <see cref="Bucket"/> as user/pencil (or with <paramref name="credentials"/>).</summary>
    public static BootstrapRun Start(bool allowPlain = false, CouchbaseCredentials? credentials = null)
    {
        List<(ClusterMap, ConnectionFeatures)> maps = new();
        var bootstrap = new CouchbaseBootstrap(credentials ?? new CouchbaseCredentials(PeerReplies.User, PeerReplies.Password, allowPlain), Bucket,
            TimeSpan.FromSeconds(30))
        {
            MapReceived = (map, features) =>
            {
                lock (maps)
                    maps.Add((map, features));
            },
        };
        return new BootstrapRun(bootstrap, maps);
    }

    /// <summary>Another connection with the same bootstrap object (it remembers the agreed mechanism).</summary>
    public static BootstrapRun Again(BootstrapRun previous) => new(previous.Bootstrap, previous.Maps);

    /// <summary>Answers HELLO, GET_ERROR_MAP and SASL_LIST_MECHS of the first write the way a healthy server does.</summary>
    public async Task ReplyToDiscoveryAsync(IReadOnlyList<ReceivedRequest> first, string mechanisms = "SCRAM-SHA512 SCRAM-SHA256")
    {
        await Server.ReplyAsync(first[0], ResponseStatus.Success, PeerReplies.HelloValue(Acknowledged));
        await Server.ReplyAsync(first[1], ResponseStatus.Success, PeerReplies.ErrorMapJson);
        await Server.ReplyAsync(first[2], ResponseStatus.Success, mechanisms);
    }

    /// <summary>Plays the first round trip of a healthy server (SCRAM-SHA512); returns the requests of the second write.</summary>
    public async Task<IReadOnlyList<ReceivedRequest>> ReachSecondWriteAsync(ScramServer scram)
    {
        var first = await Server.ReceiveAsync(4);
        await ReplyToDiscoveryAsync(first);
        await Server.ReplyAsync(first[3], ResponseStatus.AuthContinue, scram.Challenge(first[3].Value));
        return await Server.ReceiveAsync(3);
    }

    public string MapJson(long revision = 3) => PeerReplies.MapJson(11210, revision, Bucket);

    public async ValueTask DisposeAsync()
    {
        // Closing the server's side first ends a bootstrap the test left waiting for an answer.
        await Server.DisposeAsync();
        try
        {
            var connection = await Opening;
            await connection.DisposeAsync();
        }
        catch (Exception)
        {
            // A bootstrap that failed disposed its connection itself.
        }
        _orphans.Dispose();
    }
}
