using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.SubDoc;

namespace Tern.Client.Tests.SubDoc;

/// <summary>Every sub-document status maps to one typed exception that keeps the status, the key, the path and the index.</summary>
public class SubdocErrorTableTests
{
    public static TheoryData<ResponseStatus, Type> SpecStatuses => new()
    {
        { ResponseStatus.SubdocPathEnoent, typeof(PathNotFoundException) },
        { ResponseStatus.SubdocPathMismatch, typeof(PathMismatchException) },
        { ResponseStatus.SubdocPathEinval, typeof(PathInvalidException) },
        { ResponseStatus.SubdocPathE2big, typeof(PathTooBigException) },
        { ResponseStatus.SubdocDocE2deep, typeof(DocumentTooDeepException) },
        { ResponseStatus.SubdocValueCantinsert, typeof(ValueInvalidException) },
        { ResponseStatus.SubdocDocNotJson, typeof(DocumentNotJsonException) },
        { ResponseStatus.SubdocNumErange, typeof(NumberTooBigException) },
        { ResponseStatus.SubdocDeltaEinval, typeof(DeltaInvalidException) },
        { ResponseStatus.SubdocPathEexists, typeof(PathExistsException) },
        { ResponseStatus.SubdocValueEtoodeep, typeof(ValueTooDeepException) },
        { ResponseStatus.SubdocXattrInvalidFlagCombo, typeof(XattrException) },
        { ResponseStatus.SubdocXattrInvalidKeyCombo, typeof(XattrException) },
        { ResponseStatus.SubdocXattrUnknownMacro, typeof(XattrException) },
        { ResponseStatus.SubdocXattrUnknownVattr, typeof(XattrException) },
        { ResponseStatus.SubdocXattrCantModifyVattr, typeof(XattrException) },
        { ResponseStatus.SubdocInvalidXattrOrder, typeof(XattrException) },
        { ResponseStatus.SubdocXattrUnknownVattrMacro, typeof(XattrException) },
        { ResponseStatus.XattrEinval, typeof(XattrException) },
        { ResponseStatus.SubdocCanOnlyReviveDeletedDocuments, typeof(SubDocException) },
        { ResponseStatus.SubdocDeletedDocumentCantHaveValue, typeof(SubDocException) },
        { ResponseStatus.SubdocFieldNotBinaryValue, typeof(SubDocException) },
    };

    [Theory]
    [MemberData(nameof(SpecStatuses))]
    public void ASpecStatusNamesTheKeyThePathAndTheIndex(ResponseStatus status, Type expected)
    {
        var error = Assert.IsAssignableFrom<SubDocException>(
            SubdocErrors.For(Opcode.SubdocMultiMutation, status, "user::1", hadCas: false, DurabilityLevel.None, null, "a.b[2]", 4));

        Assert.Equal(expected, error.GetType());
        Assert.Equal(("user::1", "a.b[2]", 4, (ushort?)(ushort)status), (error.Key, error.Path, error.Index, error.Status));
        Assert.EndsWith(": path 'a.b[2]' (spec 4) of key 'user::1'", error.Message);
    }

    [Fact]
    public void StatusesThatAreNotTheSubDocumentsOwnFallThroughToTheHouseTable()
    {
        Assert.IsType<DocumentNotFoundException>(
            SubdocErrors.For(Opcode.SubdocMultiLookup, ResponseStatus.KeyEnoent, "k", false, DurabilityLevel.None, null));
        Assert.IsType<TemporaryFailureException>(
            SubdocErrors.For(Opcode.SubdocMultiLookup, ResponseStatus.Etmpfail, "k", false, DurabilityLevel.None, null));
        Assert.IsType<DurabilityImpossibleException>(
            SubdocErrors.For(Opcode.SubdocMultiMutation, ResponseStatus.DurabilityImpossible, "k", false, DurabilityLevel.Majority, null));
    }

    [Fact]
    public void ARequestWideStatusHasNoPath()
    {
        var error = Assert.IsType<XattrException>(
            SubdocErrors.For(Opcode.SubdocMultiMutation, ResponseStatus.SubdocInvalidXattrOrder, "k", false, DurabilityLevel.None, null));

        Assert.Equal((null, null), (error.Path, error.Index));
        Assert.Equal("XATTR specs must come before body specs: key 'k'", error.Message);
    }

    [Fact]
    public void APathOutsideAnySpecListHasNoIndex()
    {
        Assert.Equal("invalid path: path 'a[' of key 'k'", new PathInvalidException("k", "a[").Message);
    }

    [Fact]
    public void TheBinaryCountersDeltaInvalidKeepsItsMessage()
    {
        Assert.Equal("counter operation on a non-numeric value: key 'k'", new DeltaInvalidException("k").Message);
    }
}
