using System.Buffers;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.SubDoc;

/// <summary>
/// SUBDOC_MULTI_MUTATION, which every MutateIn is (even of one spec, as the official SDKs send it).
/// Success may carry values (counters), copied into a pooled buffer the <see cref="MutateInResult"/>
/// owns; a multi-path failure names the first failing spec, and the whole call throws for it.
/// With MutationSeqno negotiated the answer also carries the mutation token.
/// </summary>
public sealed class MutateInOperation : Operation<MutateInResult>
{
    private SpecOutcomes _outcomes;
    private WireOrder _wireToCaller;
    private int _count;
    private byte[]? _values;
    private int _failedIndex;
    private ResponseStatus _failedStatus;
    private MutationTokenReader _token;
    private ITypeTranscoder _transcoder = JsonTranscoder.Default;

    /// <summary>
    /// Encodes the request from the builder's specs and values. <paramref name="extras"/> are the
    /// expiry (u32, when set) then the doc flags (u8, when any), as the protocol wants them.
    /// </summary>
    internal static MutateInOperation Create(string key, uint? collectionId, MutateInSpecBuilder builder, ReadOnlySpan<byte> extras,
        ulong cas, ReadOnlySpan<byte> framingExtras, DurabilityLevel durability, ITypeTranscoder transcoder)
    {
        var operation = OperationPool<MutateInOperation>.Rent();
        operation.Prepare(Opcode.SubdocMultiMutation, key, collectionId, extras, cas, framingExtras);
        var specs = builder.Specs;
        specs.Encode(operation.Request, mutation: true, builder.Values, operation._wireToCaller);
        operation.Seal();
        operation.Durability = durability;
        operation._count = specs.Count;
        for (var i = 0; i < specs.Count; i++)
            operation._outcomes[i] = new SpecOutcome { Opcode = specs[i].Opcode, Path = specs[i].Path };
        operation._transcoder = transcoder;
        return operation;
    }

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        var status = (ResponseStatus)header.VBucketOrStatus;
        // A success on a tombstone (SubdocSuccessDeleted) carries the token as Success does.
        _token.Capture(status == ResponseStatus.SubdocSuccessDeleted ? header with { VBucketOrStatus = (ushort)ResponseStatus.Success } : header,
            body);
        if (!SubdocResponse.CarriesSpecs(status))
            return;
        var value = ValueOf(header, body);
        if (SubdocResponse.IsMultiPathFailure(status))
        {
            Span<byte> failure = stackalloc byte[3];
            var length = (int)Math.Min(value.Length, failure.Length);
            value.Slice(0, length).CopyTo(failure);
            (_failedIndex, _failedStatus) = SubdocResponse.ReadMutationFailure(failure[..length], _count, _wireToCaller, Key);
            return;
        }
        if (value.Length == 0)
            return;
        (_values, var valuesLength) = SubdocResponse.Rent(header, value, Key);
        SubdocResponse.ReadMutationValues(_values.AsSpan(0, valuesLength), ((Span<SpecOutcome>)_outcomes)[.._count], _wireToCaller, Key);
    }

    protected override MutateInResult BuildResult()
    {
        if (SubdocResponse.IsMultiPathFailure(Status))
            throw SubdocErrors.For(Opcode, _failedStatus, Key, RequestCas != 0, Durability, Keyspace,
                _outcomes[_failedIndex].Path, _failedIndex);
        if (Status is not (ResponseStatus.Success or ResponseStatus.SubdocSuccessDeleted))
            throw SubdocErrors.For(Opcode, Status, Key, RequestCas != 0, Durability, Keyspace);
        var result = new MutateInResult(_outcomes, _count, _values, ResponseCas, _token.Token(this), _transcoder);
        _values = null;
        return result;
    }

    protected override void ResetState()
    {
        base.ResetState();
        if (_values is not null)
            ArrayPool<byte>.Shared.Return(_values);
        _values = null;
        ((Span<SpecOutcome>)_outcomes)[.._count].Clear();
        _count = 0;
        _failedIndex = 0;
        _failedStatus = ResponseStatus.Success;
        _token = default;
        _transcoder = JsonTranscoder.Default;
    }

    protected override void ReturnToPool() => OperationPool<MutateInOperation>.Return(this);
}
