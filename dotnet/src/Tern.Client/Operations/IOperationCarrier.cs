using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// The connection an attempt was handed to, as an operation and its retry step see it. The IO
/// layer's connection implements it, so operations never name the layer that carries them.
/// </summary>
internal interface IOperationCarrier
{
    /// <summary>"host:port" of the peer, for messages and for maps it sends back.</summary>
    string Endpoint { get; }

    /// <summary>The error map the peer gave at bootstrap (the built-in one otherwise).</summary>
    ErrorMap ErrorMap { get; }

    /// <summary>Takes <paramref name="operation"/> out of this carrier's in-flight table (cancellation).</summary>
    void Cancel(OperationBase operation);
}
