using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Text;

namespace Tern.Client.Generators;

/// <summary>
/// Generates Tern.Client's protocol tables from the files the C++ server generates its own from
/// (server/cmake/mcbp_tables.cmake), so the two languages cannot drift apart:
/// <list type="bullet">
/// <item><c>testdata/mcbp/statuses.json</c> → <c>enum ResponseStatus : ushort</c>, a member per row
/// (its <c>name</c> = its <c>code</c>);</item>
/// <item><c>testdata/mcbp/opcodes.json</c> → <c>enum Opcode : byte</c> (the <c>requests</c> rows),
/// <c>enum ServerOpcode : byte</c> (the <c>server_requests</c> rows) and <c>OpcodeNames</c>:
/// <c>Name()</c>, the row's <c>log_name</c> in lower case as a constant string, and
/// <c>IsMutation()</c>, true for the rows with <c>"mutation": true</c>.</item>
/// </list>
/// Tern.Client.csproj passes both files as <c>AdditionalFiles</c> and references this project as an
/// analyzer; a missing file or a malformed row is a build error (TERN0001-TERN0003) pointing at the file.
/// <para>
/// Why a source generator: it runs inside the compiler on every build, incrementally, with nothing but
/// the .NET SDK and one package from the restore cache (Microsoft.CodeAnalysis.CSharp, compile-time only),
/// and IDEs see the generated types as they edit. The alternatives cost more: an MSBuild inline task
/// (RoslynCodeTaskFactory) is C# kept in XML, compiled by MSBuild on the first build of each session and
/// invisible to the IDE until a build has run; a generator tool run with <c>dotnet run</c> adds seconds to
/// every build; a checked-in generated file can go stale.
/// </para>
/// <para>
/// The JSON is read with System.Text.Json (the package, compiled against here; at build time the
/// compiler runs on .NET, whose shared framework supplies the assembly). The generator works on a
/// plain object model of it (objects as dictionaries, arrays as lists, strings, numbers as double,
/// booleans), built by <see cref="JsonTree"/>.
/// </para>
/// </summary>
[Generator(LanguageNames.CSharp)]
public sealed class ProtocolTablesGenerator : IIncrementalGenerator
{
    private const string StatusesFile = "statuses.json";
    private const string OpcodesFile = "opcodes.json";
    private const string Namespace = "Tern.Client.Protocol";

    private static readonly DiagnosticDescriptor MissingTable = new(
        "TERN0001", "Protocol table missing",
        "testdata/mcbp/{0} is not among the AdditionalFiles (or is there more than once): Tern.Client's {1} cannot be generated",
        "Tern.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    private static readonly DiagnosticDescriptor MalformedJson = new(
        "TERN0002", "Protocol table is not valid JSON",
        "{0} is not valid JSON: {1}",
        "Tern.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    private static readonly DiagnosticDescriptor BadRow = new(
        "TERN0003", "Bad row in a protocol table",
        "{0}: {1}",
        "Tern.Generators", DiagnosticSeverity.Error, isEnabledByDefault: true);

    private static readonly Regex MemberName = new("^[A-Z][A-Za-z0-9]*$", RegexOptions.CultureInvariant);
    private static readonly Regex LogName = new("^[A-Z][A-Z0-9_]*$", RegexOptions.CultureInvariant);
    private static readonly Regex HexCode = new("^0x[0-9a-f]{1,4}$", RegexOptions.CultureInvariant);

    public void Initialize(IncrementalGeneratorInitializationContext context)
    {
        // (file name, path, text): plain strings, so an unchanged file is recognised and nothing reruns.
        var tables = context.AdditionalTextsProvider
            .Where(static file => IsTable(file.Path))
            .Select(static (file, cancel) => (Name: Path.GetFileName(file.Path), file.Path, Text: file.GetText(cancel)?.ToString()))
            .Collect();
        context.RegisterSourceOutput(tables, static (output, files) => Emit(output, files));
    }

    private static bool IsTable(string path)
    {
        var name = Path.GetFileName(path);
        return string.Equals(name, StatusesFile, StringComparison.Ordinal) ||
               string.Equals(name, OpcodesFile, StringComparison.Ordinal);
    }

    private static void Emit(SourceProductionContext output, ImmutableArray<(string Name, string Path, string? Text)> files)
    {
        if (Find(output, files, StatusesFile, "ResponseStatus") is { } statuses)
        {
            var source = new Table(output, statuses.Path, statuses.Text).Statuses();
            if (source is not null)
                output.AddSource("ResponseStatus.g.cs", SourceText.From(source, Encoding.UTF8));
        }
        if (Find(output, files, OpcodesFile, "Opcode, ServerOpcode and OpcodeNames") is { } opcodes)
        {
            var source = new Table(output, opcodes.Path, opcodes.Text).Opcodes();
            if (source is not null)
                output.AddSource("Opcode.g.cs", SourceText.From(source, Encoding.UTF8));
        }
    }

    private static (string Path, string Text)? Find(SourceProductionContext output,
        ImmutableArray<(string Name, string Path, string? Text)> files, string name, string types)
    {
        var matches = files.Where(file => file.Name == name && file.Text is not null).ToList();
        if (matches.Count == 1)
            return (matches[0].Path, matches[0].Text!);
        output.ReportDiagnostic(Diagnostic.Create(MissingTable, Location.None, name, types));
        return null;
    }

    /// <summary>One table file being turned into C#; reports problems against the file and returns null.</summary>
    private sealed class Table(SourceProductionContext output, string path, string text)
    {
        private readonly string _shortPath = "testdata/mcbp/" + Path.GetFileName(path);
        private bool _failed;
        private bool _parsed;
        private object? _root;

        public string? Statuses()
        {
            var rows = Rows("statuses");
            if (rows is null)
                return null;
            var members = new StringBuilder();
            foreach (var (row, i) in rows.Select((row, i) => (row, i)))
            {
                var where = $"statuses[{i}]";
                var name = Name(row, where);
                var code = Code(row, where, ushort.MaxValue);
                var text = String(row, where, "text");
                var map = row.TryGetValue("error_map", out var m) ? m as Dictionary<string, object?> : null;
                var mapName = map is null ? null : String(map, where + ".error_map", "name");
                var desc = map is null ? null : String(map, where + ".error_map", "desc");
                if (map is null)
                    Fail($"{where} has no error_map object");
                if (name is null || code is null || text is null || mapName is null || desc is null)
                    continue;
                members.Append("    /// <summary>").Append(Xml($"{mapName}: {desc}")).Append("</summary>\n");
                members.Append("    ").Append(name).Append(" = 0x").Append(code.Value.ToString("x2", CultureInfo.InvariantCulture)).Append(",\n");
            }
            if (_failed)
                return null;
            return Header() +
                "/// <summary>\n" +
                "/// Response status codes (header bytes 6-7 of a response): one member per row of\n" +
                "/// testdata/mcbp/statuses.json, named as the server names them.\n" +
                "/// </summary>\n" +
                "public enum ResponseStatus : ushort\n{\n" + members + "}\n";
        }

        public string? Opcodes()
        {
            var requests = Rows("requests");
            var serverRequests = Rows("server_requests");
            if (requests is null || serverRequests is null)
                return null;

            var members = new StringBuilder();
            var names = new StringBuilder();
            var mutations = new List<string>();
            foreach (var (row, i) in requests.Select((row, i) => (row, i)))
            {
                var where = $"requests[{i}]";
                var name = Name(row, where);
                var code = Code(row, where, byte.MaxValue);
                var logName = Log(row, where);
                var mutation = Flag(row, where, "mutation");
                var quietOf = row.ContainsKey("quiet_of") ? String(row, where, "quiet_of") : null;
                if (name is null || code is null || logName is null)
                    continue;
                var notes = "";
                if (quietOf is not null)
                    notes += $"; the quiet form of {quietOf}";
                if (mutation)
                {
                    notes += "; a mutation";
                    mutations.Add(name);
                }
                members.Append("    /// <summary>").Append(Xml(logName + notes)).Append("</summary>\n");
                members.Append("    ").Append(name).Append(" = 0x").Append(code.Value.ToString("x2", CultureInfo.InvariantCulture)).Append(",\n");
                names.Append("        Opcode.").Append(name).Append(" => \"").Append(logName.ToLowerInvariant()).Append("\",\n");
            }

            var serverMembers = new StringBuilder();
            foreach (var (row, i) in serverRequests.Select((row, i) => (row, i)))
            {
                var where = $"server_requests[{i}]";
                var name = Name(row, where);
                var code = Code(row, where, byte.MaxValue);
                var logName = Log(row, where);
                if (name is null || code is null || logName is null)
                    continue;
                serverMembers.Append("    /// <summary>").Append(Xml(logName)).Append("</summary>\n");
                serverMembers.Append("    ").Append(name).Append(" = 0x").Append(code.Value.ToString("x2", CultureInfo.InvariantCulture)).Append(",\n");
            }
            if (_failed)
                return null;

            var isMutation = mutations.Count == 0
                ? "false"
                : "opcode is\n        " + string.Join(" or\n        ", mutations.Select(name => "Opcode." + name));
            return Header() +
                "/// <summary>\n" +
                "/// Opcodes of client requests (header byte 1, magics 0x80 and 0x08): one member per row of\n" +
                "/// testdata/mcbp/opcodes.json's <c>requests</c>, named as the server names them.\n" +
                "/// </summary>\n" +
                "public enum Opcode : byte\n{\n" + members + "}\n\n" +
                "/// <summary>\n" +
                "/// Opcodes of requests a server sends to a Duplex client (magic 0x82, answered with 0x83): a separate\n" +
                "/// space from <see cref=\"Opcode\"/>'s, one member per row of opcodes.json's <c>server_requests</c>.\n" +
                "/// </summary>\n" +
                "public enum ServerOpcode : byte\n{\n" + serverMembers + "}\n\n" +
                "/// <summary>What the opcode table says about each <see cref=\"Opcode\"/>.</summary>\n" +
                "public static class OpcodeNames\n{\n" +
                "    /// <summary>\n" +
                "    /// A lower-case name for logs, metrics and traces: the table's log_name (\"get_cluster_config\"),\n" +
                "    /// \"other\" for a value not in the table. Constant strings, so naming never allocates.\n" +
                "    /// </summary>\n" +
                "    public static string Name(this Opcode opcode) => opcode switch\n    {\n" + names +
                "        _ => \"other\",\n    };\n\n" +
                "    /// <summary>\n" +
                "    /// True for commands that may change a document (the table's \"mutation\" rows): a timeout or a\n" +
                "    /// dropped connection after sending one leaves it unknown whether the change was applied.\n" +
                "    /// </summary>\n" +
                "    public static bool IsMutation(this Opcode opcode) => " + isMutation + ";\n}\n";
        }

        private static string Header() =>
            "// <auto-generated/>\n" +
            "// Generated from testdata/mcbp/*.json by Tern.Client.Generators (ProtocolTablesGenerator): edit those.\n" +
            "namespace " + Namespace + ";\n\n";

        /// <summary>The top-level array <paramref name="member"/>, each element an object; null after reporting.</summary>
        private List<Dictionary<string, object?>>? Rows(string member)
        {
            if (!_parsed)
            {
                _parsed = true;
                try
                {
                    _root = JsonTree.Parse(text);
                }
                catch (System.Text.Json.JsonException e)
                {
                    _failed = true;
                    output.ReportDiagnostic(Diagnostic.Create(MalformedJson, At((int)(e.LineNumber ?? 0), (int)(e.BytePositionInLine ?? 0)),
                        _shortPath, e.Message));
                }
            }
            if (_failed)
                return null;
            if (_root is not Dictionary<string, object?> top || !top.TryGetValue(member, out var array) || array is not List<object?> items)
            {
                Fail($"the top level is not an object with a \"{member}\" array");
                return null;
            }
            var rows = new List<Dictionary<string, object?>>();
            for (var i = 0; i < items.Count; i++)
            {
                if (items[i] is Dictionary<string, object?> row)
                    rows.Add(row);
                else
                    Fail($"{member}[{i}] is not an object");
            }
            return _failed ? null : rows;
        }

        private string? Name(Dictionary<string, object?> row, string where)
        {
            var name = String(row, where, "name");
            if (name is not null && !MemberName.IsMatch(name))
            {
                Fail($"{where}: name \"{name}\" is not a capitalised identifier (^[A-Z][A-Za-z0-9]*$)");
                return null;
            }
            return name;
        }

        private string? Log(Dictionary<string, object?> row, string where)
        {
            var name = String(row, where, "log_name");
            if (name is not null && !LogName.IsMatch(name))
            {
                Fail($"{where}: log_name \"{name}\" is not upper case words and underscores (^[A-Z][A-Z0-9_]*$)");
                return null;
            }
            return name;
        }

        private int? Code(Dictionary<string, object?> row, string where, int max)
        {
            var code = String(row, where, "code");
            if (code is null)
                return null;
            if (!HexCode.IsMatch(code))
            {
                Fail($"{where}: code \"{code}\" is not lowercase hex with 0x");
                return null;
            }
            var value = int.Parse(code.Substring(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
            if (value > max)
            {
                Fail($"{where}: code {code} is larger than 0x{max:x}");
                return null;
            }
            return value;
        }

        private bool Flag(Dictionary<string, object?> row, string where, string field)
        {
            if (!row.TryGetValue(field, out var value))
                return false;
            if (value is bool flag)
                return flag;
            Fail($"{where}: {field} is not true or false");
            return false;
        }

        private string? String(Dictionary<string, object?> row, string where, string field)
        {
            if (row.TryGetValue(field, out var value) && value is string text)
                return text;
            Fail($"{where}: no string \"{field}\"");
            return null;
        }

        private void Fail(string message)
        {
            _failed = true;
            output.ReportDiagnostic(Diagnostic.Create(BadRow, At(0, 0), _shortPath, message));
        }

        private Location At(int line, int column)
        {
            var position = new LinePosition(line, column);
            return Location.Create(path, new TextSpan(0, 0), new LinePositionSpan(position, position));
        }

        private static string Xml(string text) =>
            text.Replace("&", "&amp;").Replace("<", "&lt;").Replace(">", "&gt;");
    }
}
