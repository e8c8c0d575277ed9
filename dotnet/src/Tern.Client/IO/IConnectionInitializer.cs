using Tern.Client.Operations;

namespace Tern.Client.IO;

/// <summary>
/// A bootstrap step run on every new connection before it carries any operation (HELLO, SASL,
/// SELECT_BUCKET, cluster-map fetch...). Steps run in order; a step that throws fails the
/// connection attempt, which is then retried with backoff.
/// </summary>
public interface IConnectionInitializer
{
    ValueTask InitializeAsync(IKvConnection connection, CancellationToken cancellationToken);
}

/// <summary>The part of a connection a bootstrap step can use.</summary>
public interface IKvConnection
{
    /// <summary>"host:port", for messages.</summary>
    string Endpoint { get; }

    /// <summary>
    /// What the connection negotiated (HELLO features, selected bucket, error map):
    /// <see cref="ConnectionFeatures.Classic"/> until a bootstrap step installs what it negotiated.
    /// </summary>
    ConnectionFeatures Features { get; set; }

    /// <summary>Sends a raw request and returns the response, whatever its status.</summary>
    ValueTask<RawResponse> SendAsync(RawRequest request, TimeSpan timeout, CancellationToken cancellationToken = default);

    /// <summary>
    /// Sends requests in one socket write and returns their responses in request order (index i
    /// answers request i), whatever their status; throws the first failure once all are done.
    /// </summary>
    ValueTask<RawResponse[]> SendBatchAsync(IReadOnlyList<RawRequest> requests, TimeSpan timeout, CancellationToken cancellationToken = default);
}
