using System.Buffers;
using Tern.Client.Protocol;

namespace Tern.Client.Operations;

/// <summary>
/// What happens to an operation whose attempt failed: the step may take the operation over (to send
/// it again, now or later, on this or another connection, or to fail it itself) or decline, and the
/// failure then completes the operation as it would without a step. Set per operation through
/// <see cref="OperationBase.RetryStep"/>. Deadline timeouts and cancellation never reach a step: they
/// end the operation.
/// </summary>
internal interface IRetryStep
{
    /// <summary>
    /// Called on the read loop for a non-Success response, after the operation left its connection's
    /// in-flight table and its slot was released. True: the step took the operation over (it will send
    /// it again or fail it); the response is then not captured. Must copy anything it needs from
    /// <paramref name="body"/> at once, and must not block: the read loop waits for it.
    /// </summary>
    bool OnResponse(OperationBase operation, in FrameHeader header, in ReadOnlySequence<byte> body);

    /// <summary>
    /// Called when the connection carrying (or about to carry) the operation failed, after the operation
    /// left that connection. <paramref name="sent"/> says whether the request may have reached the
    /// server; <paramref name="error"/> is what the operation fails with if the step declines. True:
    /// taken over.
    /// </summary>
    bool OnConnectionFailure(OperationBase operation, Exception error, bool sent);
}
