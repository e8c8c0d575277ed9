using System.Buffers.Binary;
using System.Text;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Operations;
using Tern.Client.Protocol;

namespace Tern.Client.Couchbase;

/// <summary>
/// Bootstraps one couchbase:// connection in two round trips. The first write carries HELLO,
/// GET_ERROR_MAP, SASL_LIST_MECHS and SASL_AUTH with the SCRAM client-first message (the mechanism
/// is chosen before the list arrives: SHA-512 unless the server's last list said otherwise); the
/// second carries SASL_STEP, SELECT_BUCKET and GET_CLUSTER_CONFIG. The server runs a connection's
/// requests in order, so when authentication fails the other two answers say so too, and the
/// caller gets <see cref="AuthenticationFailureException"/>. A server that offers no mechanism we
/// chose costs one more round trip. With a client certificate (<see cref="CouchbaseCredentials.ByCertificate"/>)
/// the TLS handshake logged the connection in: no SASL is sent. Installs the negotiated <see cref="ConnectionFeatures"/> on the
/// connection and hands the cluster map to <see cref="MapReceived"/>.
/// </summary>
internal sealed class CouchbaseBootstrap(CouchbaseCredentials credentials, string? bucket, TimeSpan timeout) : IConnectionInitializer
{
    private static readonly HelloFeature[] Requested =
    [
        HelloFeature.TcpNoDelay, HelloFeature.MutationSeqno, HelloFeature.Xattr, HelloFeature.Xerror, HelloFeature.SelectBucket,
        HelloFeature.Snappy, HelloFeature.Json, HelloFeature.Duplex, HelloFeature.ClustermapChangeNotification,
        HelloFeature.Tracing, HelloFeature.AltRequestSupport, HelloFeature.SyncReplication,
        HelloFeature.Collections, HelloFeature.PreserveTtl, HelloFeature.SubdocCreateAsDeleted, HelloFeature.SubdocBinaryXattr,
    ];

    private static long s_connections;

    // The mechanism a server last agreed to: later connections start with it and need no extra trip.
    private volatile string? _agreedMechanism;

    /// <summary>Receives the map each bucket connection fetched, with the host it connected to.</summary>
    public Action<ClusterMap, ConnectionFeatures>? MapReceived { get; init; }

    /// <summary>Leave Snappy out of HELLO (ClusterOptions.EnableCompression false).</summary>
    public bool WithoutSnappy { get; init; }

    /// <summary>couchbases://: the map's nodes are reached at their TLS ports.</summary>
    public bool Tls { get; init; }

    public async ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken)
    {
        RawRequest[] greeting = [Hello(Interlocked.Increment(ref s_connections)), new RawRequest(Opcode.GetErrorMap, Value: [0, 2])];
        if (credentials.ByCertificate)
        {
            var answers = await connection.SendBatchAsync(greeting, timeout, cancellationToken).ConfigureAwait(false);
            var map = answers[1].Status == ResponseStatus.Success ? ErrorMap.Parse(answers[1].Value) : ErrorMap.Default;
            await SelectBucketAsync(connection, ReadHello(answers[0], connection.Endpoint), map, [], cancellationToken).ConfigureAwait(false);
            return;
        }
        var mechanism = _agreedMechanism ?? credentials.Preferred;
        var sasl = SaslSession.Start(mechanism, credentials);
        var first = await connection.SendBatchAsync(
        [
            .. greeting,
            new RawRequest(Opcode.SaslListMechs),
            new RawRequest(Opcode.SaslAuth, Key: Encoding.ASCII.GetBytes(mechanism), Value: sasl.First),
        ], timeout, cancellationToken).ConfigureAwait(false);
        var negotiated = ReadHello(first[0], connection.Endpoint);
        var errorMap = first[1].Status == ResponseStatus.Success ? ErrorMap.Parse(first[1].Value) : ErrorMap.Default;
        var offered = Encoding.ASCII.GetString(first[2].Value).Split(' ', StringSplitOptions.RemoveEmptyEntries);
        var auth = first[3];
        if (auth.Status is not (ResponseStatus.AuthContinue or ResponseStatus.Success) && !offered.Contains(mechanism))
        {
            // The server does not know the mechanism we guessed: start again with the best it offers.
            mechanism = credentials.Choose(offered, connection.Endpoint);
            sasl = SaslSession.Start(mechanism, credentials);
            auth = await connection.SendAsync(new RawRequest(Opcode.SaslAuth, Key: Encoding.ASCII.GetBytes(mechanism), Value: sasl.First),
                timeout, cancellationToken).ConfigureAwait(false);
        }
        if (auth.Status is not (ResponseStatus.AuthContinue or ResponseStatus.Success))
            throw Refusal(connection.Endpoint, mechanism, auth.Status, errorMap);
        // SCRAM is mutual: a server that accepts the first message without the exchange never
        // proves it knows the password, so it could be anyone.
        if (auth.Status == ResponseStatus.Success && mechanism != "PLAIN")
            throw new AuthenticationFailureException(
                $"{connection.Endpoint} accepted {mechanism} for '{credentials.UserName}' without the SCRAM exchange: " +
                "it did not prove it knows the password");
        _agreedMechanism = mechanism;

        if (auth.Status != ResponseStatus.AuthContinue)
        {
            await SelectBucketAsync(connection, negotiated, errorMap, [], cancellationToken).ConfigureAwait(false);
            return;
        }
        // The SASL step travels with SELECT_BUCKET and GET_CLUSTER_CONFIG: one round trip for all three.
        var step = new RawRequest(Opcode.SaslStep, Key: Encoding.ASCII.GetBytes(mechanism), Value: sasl.Final(auth.Value));
        await SelectBucketAsync(connection, negotiated, errorMap, [step], cancellationToken, stepAnswer =>
        {
            if (stepAnswer.Status != ResponseStatus.Success)
                throw Refusal(connection.Endpoint, mechanism, stepAnswer.Status, errorMap);
            if (!sasl.Verify(stepAnswer.Value))
                throw new AuthenticationFailureException(
                    $"the server at {connection.Endpoint} failed to prove it knows the password of '{credentials.UserName}' " +
                    $"({mechanism}): its signature did not verify");
        }).ConfigureAwait(false);
    }

    /// <summary>
    /// Sends <paramref name="before"/> (the last SASL step, or nothing), then SELECT_BUCKET and
    /// GET_CLUSTER_CONFIG when the connection opens a bucket, in one batch; <paramref name="checkBefore"/>
    /// checks the answer to <paramref name="before"/> first. Installs the features and hands the map on.
    /// </summary>
    private async ValueTask SelectBucketAsync(IKvConnection connection, HashSet<HelloFeature> negotiated, ErrorMap errorMap,
        RawRequest[] before, CancellationToken cancellationToken, Action<RawResponse>? checkBefore = null)
    {
        var second = new List<RawRequest>(before);
        if (bucket is not null)
        {
            second.Add(new RawRequest(Opcode.SelectBucket, Key: Encoding.UTF8.GetBytes(bucket)));
            second.Add(new RawRequest(Opcode.GetClusterConfig));
        }
        var answers = second.Count == 0 ? [] : await connection.SendBatchAsync(second, timeout, cancellationToken).ConfigureAwait(false);
        var next = 0;
        if (before.Length > 0)
            checkBefore?.Invoke(answers[next++]);
        connection.Features = new ConnectionFeatures(negotiated, bucket, errorMap);
        if (bucket is null)
            return;
        var select = answers[next++];
        if (select.Status is ResponseStatus.Eaccess or ResponseStatus.KeyEnoent)
            throw new BucketNotFoundException(bucket, $"{connection.Endpoint} answered SELECT_BUCKET with {Describe(select.Status, errorMap)}");
        if (select.Status != ResponseStatus.Success)
            throw new ConnectionFailedException(
                $"{connection.Endpoint} answered SELECT_BUCKET '{bucket}' with {Describe(select.Status, errorMap)}; the connection is retried");
        var config = answers[next];
        if (config.Status != ResponseStatus.Success)
            throw new ConnectionFailedException(
                $"{connection.Endpoint} answered GET_CLUSTER_CONFIG for bucket '{bucket}' with {Describe(config.Status, errorMap)}; " +
                "is it a memcached bucket? Only Couchbase (vbucket) buckets are supported over couchbase://");
        MapReceived?.Invoke(ClusterMap.Parse(config.Value, HostOf(connection.Endpoint), Tls), connection.Features);
    }

    private RawRequest Hello(long connectionNumber)
    {
        var features = WithoutSnappy ? Requested.Where(f => f != HelloFeature.Snappy).ToArray() : Requested;
        var value = new byte[features.Length * 2];
        for (var i = 0; i < features.Length; i++)
            BinaryPrimitives.WriteUInt16BigEndian(value.AsSpan(i * 2), (ushort)features[i]);
        var agent = $"{{\"a\":\"tern-dotnet/{typeof(CouchbaseBootstrap).Assembly.GetName().Version}\",\"i\":\"{Environment.ProcessId:x}/{connectionNumber:x}\"}}";
        return new RawRequest(Opcode.Hello, Key: Encoding.UTF8.GetBytes(agent), Value: value);
    }

    private static HashSet<HelloFeature> ReadHello(RawResponse hello, string endpoint)
    {
        if (hello.Status != ResponseStatus.Success)
            throw new ConnectionFailedException(
                $"{endpoint} answered HELLO with status 0x{(ushort)hello.Status:x2}: it does not speak the Couchbase protocol " +
                "(for plain memcached use memcached://)");
        var negotiated = new HashSet<HelloFeature>();
        for (var i = 0; i + 1 < hello.Value.Length; i += 2)
            negotiated.Add((HelloFeature)BinaryPrimitives.ReadUInt16BigEndian(hello.Value.AsSpan(i)));
        return negotiated;
    }

    /// <summary>
    /// Wrong credentials (AuthError) are final: <see cref="AuthenticationFailureException"/>. Any other
    /// refusal (Etmpfail while the server starts...) fails only this connection, which is retried.
    /// </summary>
    private Exception Refusal(string endpoint, string mechanism, ResponseStatus status, ErrorMap map) =>
        status is ResponseStatus.AuthError
            ? credentials.Refused(endpoint, mechanism, status)
            : new ConnectionFailedException(
                $"{endpoint} could not authenticate '{credentials.UserName}' ({mechanism}) now: it answered {Describe(status, map)}; " +
                "the connection is retried");

    private static string Describe(ResponseStatus status, ErrorMap map) =>
        map.NameOf((ushort)status) is { } name ? $"{name} (0x{(ushort)status:x2})" : $"status 0x{(ushort)status:x2}";

    /// <summary>The host part of "host:port" (IPv6 without brackets), which replaces "$HOST" in maps.</summary>
    internal static string HostOf(string endpoint)
    {
        var colon = endpoint.LastIndexOf(':');
        var host = colon < 0 ? endpoint : endpoint[..colon];
        return host.StartsWith('[') && host.EndsWith(']') ? host[1..^1] : host;
    }
}
