using System.Runtime.CompilerServices;
using Tern.Client.Protocol;

namespace Tern.Client.SubDoc;

/// <summary>
/// What one spec asked and what its answer was: its opcode and path (the caller's string, for the
/// errors), the status the server gave it, and where its value lies in the answer's buffer.
/// </summary>
internal struct SpecOutcome
{
    public Opcode Opcode;
    public string Path;
    public ResponseStatus Status;
    public int Offset;
    public int Length;
}

/// <summary>One outcome per spec, in the caller's order, held inline: no array per operation or result.</summary>
[InlineArray(SubdocSpecList.MaxSpecs)]
internal struct SpecOutcomes
{
    private SpecOutcome _first;

    /// <summary>The index of the first of <paramref name="outcomes"/> with this path, or -1.</summary>
    public static int IndexOf(ReadOnlySpan<SpecOutcome> outcomes, string path)
    {
        for (var i = 0; i < outcomes.Length; i++)
        {
            if (outcomes[i].Path == path)
                return i;
        }
        return -1;
    }
}

/// <summary>For each position on the wire, the caller's index of the spec sent there (XATTR specs go first).</summary>
[InlineArray(SubdocSpecList.MaxSpecs)]
internal struct WireOrder
{
    private byte _first;
}
