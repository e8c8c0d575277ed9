namespace Tern.Client.Protocol;

/// <summary>
/// A decoded frame whose parts are views into the decoded buffer: valid only as long as it is.
/// </summary>
public readonly ref struct Frame
{
    public Frame(FrameHeader header, ReadOnlySpan<byte> body)
    {
        Header = header;
        var offset = 0;
        FramingExtras = body.Slice(offset, header.FramingExtrasLength);
        offset += header.FramingExtrasLength;
        Extras = body.Slice(offset, header.ExtrasLength);
        offset += header.ExtrasLength;
        Key = body.Slice(offset, header.KeyLength);
        offset += header.KeyLength;
        Value = body[offset..];
    }

    public FrameHeader Header { get; }
    public ReadOnlySpan<byte> FramingExtras { get; }
    public ReadOnlySpan<byte> Extras { get; }
    public ReadOnlySpan<byte> Key { get; }
    public ReadOnlySpan<byte> Value { get; }

    /// <summary>Bytes the frame occupies: header plus body.</summary>
    public int Size => FrameHeader.Size + (int)Header.BodyLength;
}
