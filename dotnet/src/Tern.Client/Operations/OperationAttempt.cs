namespace Tern.Client.Operations;

/// <summary>
/// What one attempt of an operation holds: the connection carrying it, the opaque that connection
/// gave it, and where its request ends in that connection's byte stream. Cleared by
/// <see cref="OperationBase.BeginAttempt"/> so the operation can be sent again elsewhere.
/// </summary>
internal struct OperationAttempt
{
    /// <summary>The connection the request was handed to (null before the first send).</summary>
    public IOperationCarrier? Connection;

    /// <summary>The request's opaque on <see cref="Connection"/>: the key of its in-flight table.</summary>
    public uint Opaque;

    /// <summary>
    /// Bytes written to <see cref="Connection"/> up to the end of this request: once the connection has
    /// sent that many, the request may have reached the server.
    /// </summary>
    public long WriteEndOffset;
}
