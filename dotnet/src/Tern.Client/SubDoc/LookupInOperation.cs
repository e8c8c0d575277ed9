using System.Buffers;
using Tern.Client.Operations;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.SubDoc;

/// <summary>
/// SUBDOC_MULTI_LOOKUP, which every LookupIn is (even of one spec, as the official SDKs send it):
/// the answer's value is copied into a pooled buffer that the <see cref="LookupInResult"/> owns,
/// and split into per-spec outcomes in the caller's order.
/// </summary>
public sealed class LookupInOperation : Operation<LookupInResult>
{
    private SpecOutcomes _outcomes;
    private WireOrder _wireToCaller;
    private int _count;
    private byte[]? _body;
    private ITypeTranscoder _transcoder = JsonTranscoder.Default;
    private bool _missIsResult;

    /// <summary>
    /// Encodes the request from <paramref name="specs"/>. With <paramref name="missIsResult"/> a
    /// missing document yields a result whose Found is false instead of an exception (TryGet).
    /// </summary>
    internal static LookupInOperation Create(string key, uint? collectionId, SubdocSpecList specs, SubdocDocFlags docFlags,
        ITypeTranscoder transcoder, bool missIsResult)
    {
        var operation = OperationPool<LookupInOperation>.Rent();
        ReadOnlySpan<byte> extras = docFlags == SubdocDocFlags.None ? [] : [(byte)docFlags];
        operation.Prepare(Opcode.SubdocMultiLookup, key, collectionId, extras);
        specs.Encode(operation.Request, mutation: false, default, operation._wireToCaller);
        operation.Seal();
        operation._count = specs.Count;
        for (var i = 0; i < specs.Count; i++)
            operation._outcomes[i] = new SpecOutcome { Opcode = specs[i].Opcode, Path = specs[i].Path };
        operation._transcoder = transcoder;
        operation._missIsResult = missIsResult;
        return operation;
    }

    protected override void CaptureResponse(in FrameHeader header, in ReadOnlySequence<byte> body)
    {
        if (!SubdocResponse.CarriesSpecs((ResponseStatus)header.VBucketOrStatus))
            return;
        (_body, var length) = SubdocResponse.Rent(header, ValueOf(header, body), Key);
        SubdocResponse.ReadLookup(_body.AsSpan(0, length), ((Span<SpecOutcome>)_outcomes)[.._count], _wireToCaller, Key);
    }

    protected override LookupInResult BuildResult()
    {
        if (SubdocResponse.CarriesSpecs(Status))
        {
            var result = new LookupInResult(Key, _outcomes, _count, _body!, ResponseCas, SubdocResponse.OnDeleted(Status), _transcoder)
            {
                IsActive = Replica < 0,
            };
            _body = null;
            return result;
        }
        if (Status == ResponseStatus.KeyEnoent && _missIsResult)
            return LookupInResult.NotFound;
        throw SubdocErrors.For(Opcode, Status, Key, hadCas: false, Durability, Keyspace);
    }

    protected override void ResetState()
    {
        base.ResetState();
        if (_body is not null)
            ArrayPool<byte>.Shared.Return(_body);
        _body = null;
        ((Span<SpecOutcome>)_outcomes)[.._count].Clear();
        _count = 0;
        _transcoder = JsonTranscoder.Default;
        _missIsResult = false;
    }

    protected override void ReturnToPool() => OperationPool<LookupInOperation>.Return(this);
}
