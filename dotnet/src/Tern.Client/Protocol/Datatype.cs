namespace Tern.Client.Protocol;

/// <summary>Datatype bits (header byte 5); zero means raw bytes.</summary>
[Flags]
public enum Datatype : byte
{
    Raw = 0x00,
    Json = 0x01,
    Snappy = 0x02,
    Xattr = 0x04,
}
