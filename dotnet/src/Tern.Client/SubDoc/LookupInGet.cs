using System.Buffers.Text;
using System.Runtime.InteropServices;
using System.Text.Json;
using Tern.Client.Exceptions;
using Tern.Client.Protocol;
using Tern.Client.Transcoders;

namespace Tern.Client.SubDoc;

/// <summary>
/// GetAsync with <see cref="GetOptions.WithExpiry"/> or a <see cref="GetOptions.Projection"/>, read
/// as one SUBDOC_MULTI_LOOKUP as the official SDKs do. The specs, in order: the expiry
/// (<c>$document.exptime</c>, a virtual XATTR) when asked for; then either one Get per projected
/// path, or the item flags (<c>$document.flags</c>, so the transcoder decodes the body as GET would)
/// and the whole body. Projections of more paths than fit beside the expiry in 16 specs read the
/// whole body and project it here.
/// </summary>
internal readonly struct LookupInGet
{
    public const string ExpiryPath = "$document.exptime";
    public const string FlagsPath = "$document.flags";

    private readonly bool _withExpiry;
    private readonly IReadOnlyList<string>? _projection;
    private readonly bool _projectHere;

    public LookupInGet(GetOptions options)
    {
        _withExpiry = options.WithExpiry;
        _projection = options.Projection is { Count: > 0 } projection ? projection : null;
        _projectHere = _projection is not null && _projection.Count > SubdocSpecList.MaxSpecs - (_withExpiry ? 1 : 0);
    }

    private bool ProjectsOnServer => _projection is not null && !_projectHere;

    public void AddSpecs(LookupInSpecBuilder builder)
    {
        if (_withExpiry)
            builder.Get(ExpiryPath, isXattr: true);
        if (ProjectsOnServer)
        {
            foreach (var path in _projection!)
                builder.Get(path);
            return;
        }
        if (_projection is null)
            builder.Get(FlagsPath, isXattr: true);
        builder.GetFull();
    }

    public static async ValueTask<GetResult> CompleteAsync(LookupInGet plan, ValueTask<LookupInResult> lookup, ITypeTranscoder transcoder)
    {
        using var result = await lookup.ConfigureAwait(false);
        return result.Found ? plan.ToGetResult(result, transcoder) : GetResult.NotFound;
    }

    private GetResult ToGetResult(LookupInResult result, ITypeTranscoder transcoder)
    {
        var next = 0;
        var expiry = _withExpiry ? ExpiryTime(ReadNumber(result, next++)) : null;
        if (_projection is null)
        {
            var flags = (uint)ReadNumber(result, next++);
            var (buffer, length) = result.DetachContent(next);
            var datatype = (flags & 0xff000000) == DocumentFlags.Json ? Datatype.Json : Datatype.Raw;
            return new GetResult(found: true, buffer, length, result.Cas, flags, datatype, transcoder, rented: true) { ExpiryTime = expiry };
        }
        var tree = new ProjectionTree();
        if (_projectHere)
            ProjectHere(result, next, tree);
        else
            ProjectFromSpecs(result, next, tree);
        var writer = new RentedBufferWriter();
        using (var json = new Utf8JsonWriter(writer))
            tree.WriteTo(json);
        var (content, contentLength) = writer.Detach();
        return new GetResult(found: true, content, contentLength, result.Cas, DocumentFlags.Json, Datatype.Json, transcoder, rented: true)
        {
            ExpiryTime = expiry,
        };
    }

    /// <summary>Each projected path's own spec: a missing one is left out, as the official SDKs do.</summary>
    private void ProjectFromSpecs(LookupInResult result, int first, ProjectionTree tree)
    {
        for (var i = 0; i < _projection!.Count; i++)
        {
            var index = first + i;
            if (result.StatusOf(index) is ResponseStatus.SubdocPathEnoent or ResponseStatus.SubdocPathMismatch)
                continue;
            tree.Add(Segments(result, _projection[i]), result.ContentMemory(index));
        }
    }

    /// <summary>The whole body, walked here for each projected path.</summary>
    private void ProjectHere(LookupInResult result, int bodyIndex, ProjectionTree tree)
    {
        var key = result.Key;
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(result.ContentMemory(bodyIndex));
        }
        catch (JsonException)
        {
            throw new DocumentNotJsonException(key);
        }
        using (document)
        {
            for (var i = 0; i < _projection!.Count; i++)
            {
                var path = Segments(result, _projection[i]);
                if (Find(document.RootElement, path) is { } found)
                    tree.Add(path, JsonMarshal.GetRawUtf8Value(found).ToArray());
            }
        }
    }

    private static JsonElement? Find(JsonElement element, List<PathSegment> path)
    {
        foreach (var segment in path)
        {
            if (segment.IsIndex)
            {
                if (element.ValueKind != JsonValueKind.Array)
                    return null;
                var length = element.GetArrayLength();
                var index = segment.Index < 0 ? length + segment.Index : segment.Index;
                if (index < 0 || index >= length)
                    return null;
                element = element[index];
            }
            else if (element.ValueKind != JsonValueKind.Object || !element.TryGetProperty(segment.Name!, out element))
            {
                return null;
            }
        }
        return element;
    }

    private static List<PathSegment> Segments(LookupInResult result, string path) =>
        ProjectionPath.Parse(path) ?? throw new PathInvalidException(result.Key, path);

    /// <summary>A virtual XATTR that is a decimal number (exptime, flags).</summary>
    private static ulong ReadNumber(LookupInResult result, int index)
    {
        var json = result.Content(index);
        if (Utf8Parser.TryParse(json, out ulong value, out var consumed) && consumed == json.Length)
            return value;
        throw new TernException(
            $"the server answered '{System.Text.Encoding.UTF8.GetString(json)}' for {result.PathOf(index)}, not a number; key '{TernException.Describe(result.Key)}'",
            result.Key);
    }

    /// <summary>Absolute Unix seconds; 0 means the document never expires.</summary>
    private static DateTime? ExpiryTime(ulong seconds) =>
        seconds == 0 ? null : DateTime.UnixEpoch.AddSeconds(seconds);
}
