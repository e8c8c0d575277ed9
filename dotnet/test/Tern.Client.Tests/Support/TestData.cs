using System.Text.Json;

namespace Tern.Client.Tests.Support;

/// <summary>Finds the repository's testdata/ directory and reads the shared codec vectors.</summary>
public static class TestData
{
    public static string Directory { get; } = Locate();

    public static JsonDocument Load(string relativePath) =>
        JsonDocument.Parse(File.ReadAllBytes(Path.Combine(Directory, relativePath)));

    public static byte[] Hex(string hex) => Convert.FromHexString(hex);

    /// <summary>The repository root (parent of testdata/).</summary>
    public static string RepositoryRoot => Path.GetDirectoryName(Directory)!;

    private static string Locate()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            var candidate = Path.Combine(dir.FullName, "testdata");
            if (System.IO.Directory.Exists(Path.Combine(candidate, "mcbp")))
                return candidate;
        }
        throw new DirectoryNotFoundException($"no testdata/mcbp above {AppContext.BaseDirectory}");
    }
}
