using System.Globalization;
using System.Text.Json;
using Tern.Client.IO;
using Tern.Client.Protocol;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Protocol;

/// <summary>
/// ResponseStatus, Opcode, ServerOpcode and OpcodeNames are generated at build time from
/// testdata/mcbp/statuses.json and opcodes.json (Tern.Client.Generators). These read the files
/// again, as the tests run, and check the compiled enums against every row, so a build that
/// did not regenerate them, or a generator that drops a row, fails here.
/// </summary>
public class ProtocolTableTests
{
    [Fact]
    public void ResponseStatusHasEveryRowOfTheStatusesTableAndNothingElse()
    {
        using var table = TestData.Load("mcbp/statuses.json");
        var rows = table.RootElement.GetProperty("statuses").EnumerateArray().ToList();
        foreach (var row in rows)
        {
            var name = row.GetProperty("name").GetString()!;
            Assert.True(Enum.TryParse<ResponseStatus>(name, ignoreCase: false, out var status) && Enum.IsDefined(status),
                $"ResponseStatus has no member {name}");
            Assert.Equal(Code(row), (int)status);
        }
        Assert.Equal(rows.Count, Enum.GetValues<ResponseStatus>().Length);
        Assert.True(rows.Count > 50, $"only {rows.Count} rows");
    }

    [Fact]
    public void OpcodeHasEveryRequestRowWithItsNameAndMutationFlag()
    {
        using var table = TestData.Load("mcbp/opcodes.json");
        var rows = table.RootElement.GetProperty("requests").EnumerateArray().ToList();
        foreach (var row in rows)
        {
            var name = row.GetProperty("name").GetString()!;
            Assert.True(Enum.TryParse<Opcode>(name, ignoreCase: false, out var opcode) && Enum.IsDefined(opcode),
                $"Opcode has no member {name}");
            Assert.Equal(Code(row), (int)opcode);
            Assert.Equal(row.GetProperty("log_name").GetString()!.ToLowerInvariant(), opcode.Name());
            var mutation = row.TryGetProperty("mutation", out var flag) && flag.GetBoolean();
            Assert.True(mutation == opcode.IsMutation(), $"{name}.IsMutation() is {opcode.IsMutation()}, the table says {mutation}");
        }
        Assert.Equal(rows.Count, Enum.GetValues<Opcode>().Length);
        Assert.True(rows.Count > 50, $"only {rows.Count} rows");
    }

    [Fact]
    public void ServerOpcodeHasEveryServerRequestRow()
    {
        using var table = TestData.Load("mcbp/opcodes.json");
        var rows = table.RootElement.GetProperty("server_requests").EnumerateArray().ToList();
        foreach (var row in rows)
        {
            var name = row.GetProperty("name").GetString()!;
            Assert.True(Enum.TryParse<ServerOpcode>(name, ignoreCase: false, out var opcode) && Enum.IsDefined(opcode),
                $"ServerOpcode has no member {name}");
            Assert.Equal(Code(row), (int)opcode);
        }
        Assert.Equal(rows.Count, Enum.GetValues<ServerOpcode>().Length);
        Assert.Equal(0x01, ServerRequest.ClustermapChangeNotification);
    }

    [Fact]
    public void NamesAreConstantsAndUnknownValuesAreOther()
    {
        Assert.Equal("get_cluster_config", Opcode.GetClusterConfig.Name());
        Assert.Equal("gat", Opcode.Gat.Name());
        Assert.Same(Opcode.Get.Name(), Opcode.Get.Name());
        Assert.Equal("other", ((Opcode)0x7f).Name());
        Assert.False(((Opcode)0x7f).IsMutation());
    }

    /// <summary>
    /// What timeouts and retries rely on: a lost answer to these leaves the change unknown, so they
    /// are never retried blindly. Pinned here in case a "mutation" flag is dropped from the table.
    /// </summary>
    [Theory]
    [InlineData(Opcode.Set, true)]
    [InlineData(Opcode.Add, true)]
    [InlineData(Opcode.Replace, true)]
    [InlineData(Opcode.Delete, true)]
    [InlineData(Opcode.Increment, true)]
    [InlineData(Opcode.Decrement, true)]
    [InlineData(Opcode.Append, true)]
    [InlineData(Opcode.Prepend, true)]
    [InlineData(Opcode.Touch, true)]
    [InlineData(Opcode.Gat, true)]
    [InlineData(Opcode.GetLocked, true)]
    [InlineData(Opcode.UnlockKey, true)]
    [InlineData(Opcode.SetQ, true)]
    [InlineData(Opcode.SubdocMultiMutation, true)]
    [InlineData(Opcode.Get, false)]
    [InlineData(Opcode.GetMeta, false)]
    [InlineData(Opcode.GetReplica, false)]
    [InlineData(Opcode.SubdocMultiLookup, false)]
    [InlineData(Opcode.Noop, false)]
    [InlineData(Opcode.Hello, false)]
    [InlineData(Opcode.GetClusterConfig, false)]
    [InlineData(Opcode.GetCollectionId, false)]
    public void MutationsAreTheCommandsThatChangeDocuments(Opcode opcode, bool mutation) =>
        Assert.Equal(mutation, opcode.IsMutation());

    private static int Code(JsonElement row)
    {
        var code = row.GetProperty("code").GetString()!;
        Assert.StartsWith("0x", code);
        return int.Parse(code.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
    }
}
