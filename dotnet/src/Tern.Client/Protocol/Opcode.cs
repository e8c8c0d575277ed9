namespace Tern.Client.Protocol;

/// <summary>Command codes the SDK sends (the wire byte at header offset 1).</summary>
public enum Opcode : byte
{
    Get = 0x00,
    Set = 0x01,
    Add = 0x02,
    Replace = 0x03,
    Delete = 0x04,
    Increment = 0x05,
    Decrement = 0x06,
    Quit = 0x07,
    Noop = 0x0a,
    Version = 0x0b,
    Append = 0x0e,
    Prepend = 0x0f,
    Touch = 0x1c,
    GetAndTouch = 0x1d,
    Hello = 0x1f,
    SaslListMechs = 0x20,
    SaslAuth = 0x21,
    SaslStep = 0x22,
    SelectBucket = 0x89,
    GetLocked = 0x94,
    UnlockKey = 0x95,
    GetMeta = 0xa0,
    GetClusterConfig = 0xb5,
    GetCollectionsManifest = 0xba,
    GetCollectionId = 0xbb,
    GetErrorMap = 0xfe,
}

public static class OpcodeNames
{
    /// <summary>A lower-case name for logs, metrics and traces; static strings, so naming never allocates.</summary>
    public static string Name(this Opcode opcode) => opcode switch
    {
        Opcode.Get => "get",
        Opcode.Set => "set",
        Opcode.Add => "add",
        Opcode.Replace => "replace",
        Opcode.Delete => "delete",
        Opcode.Increment => "increment",
        Opcode.Decrement => "decrement",
        Opcode.Append => "append",
        Opcode.Prepend => "prepend",
        Opcode.Touch => "touch",
        Opcode.GetAndTouch => "get_and_touch",
        Opcode.GetLocked => "get_and_lock",
        Opcode.UnlockKey => "unlock",
        Opcode.GetMeta => "get_meta",
        Opcode.Noop => "noop",
        Opcode.Version => "version",
        Opcode.Hello => "hello",
        Opcode.SaslListMechs => "sasl_list_mechs",
        Opcode.SaslAuth => "sasl_auth",
        Opcode.SaslStep => "sasl_step",
        Opcode.SelectBucket => "select_bucket",
        Opcode.GetClusterConfig => "get_cluster_config",
        Opcode.GetCollectionId => "get_collection_id",
        Opcode.GetErrorMap => "get_error_map",
        _ => "other",
    };

    /// <summary>True for commands that change data: a timeout after sending them is ambiguous.</summary>
    public static bool IsMutation(this Opcode opcode) => opcode is
        Opcode.Set or Opcode.Add or Opcode.Replace or Opcode.Delete or Opcode.Increment or
        Opcode.Decrement or Opcode.Append or Opcode.Prepend or Opcode.Touch or Opcode.GetAndTouch or
        Opcode.GetLocked or Opcode.UnlockKey;
}
