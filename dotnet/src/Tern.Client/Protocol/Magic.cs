namespace Tern.Client.Protocol;

/// <summary>The first byte of every frame.</summary>
public enum Magic : byte
{
    Request = 0x80,
    Response = 0x81,
    AltRequest = 0x08,
    AltResponse = 0x18,
    ServerRequest = 0x82,
    ServerResponse = 0x83,
}

public static class MagicExtensions
{
    public static bool IsKnown(byte magic) =>
        magic is 0x80 or 0x81 or 0x08 or 0x18 or 0x82 or 0x83;

    /// <summary>True for the "alt" layouts where byte 2 holds the framing-extras length and byte 3 the key length.</summary>
    public static bool HasFramingExtras(byte magic) => magic is 0x08 or 0x18;
}
