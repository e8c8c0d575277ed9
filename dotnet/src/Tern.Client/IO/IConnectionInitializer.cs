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

    /// <summary>Sends a raw request and returns the response, whatever its status.</summary>
    ValueTask<RawResponse> SendAsync(RawRequest request, TimeSpan timeout, CancellationToken cancellationToken = default);
}
