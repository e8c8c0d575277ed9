namespace Tern.Client.Protocol;

/// <summary>HELLO (0x1f) feature codes, as u16 on the wire. The numbers are the protocol's; names follow Couchbase's.</summary>
public enum HelloFeature : ushort
{
    TcpNoDelay = 0x03,
    MutationSeqno = 0x04,
    Xattr = 0x06,
    Xerror = 0x07,
    SelectBucket = 0x08,
    Snappy = 0x0a,
    Json = 0x0b,
    Duplex = 0x0c,
    ClustermapChangeNotification = 0x0d,
    UnorderedExecution = 0x0e,
    Tracing = 0x0f,
    AltRequestSupport = 0x10,
    SyncReplication = 0x11,
    Collections = 0x12,
    PreserveTtl = 0x14,
    SubdocCreateAsDeleted = 0x17,
    SubdocBinaryXattr = 0x21,
}
