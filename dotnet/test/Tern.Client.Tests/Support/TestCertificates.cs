using System.Diagnostics;

namespace Tern.Client.Tests.Support;

/// <summary>
/// The TLS tests' certificates, made once per test process by scripts/test-certs.sh into a
/// temporary directory (removed at exit): nothing secret in git. See the script for what each file is.
/// </summary>
public static class TestCertificates
{
    private static readonly Lazy<string> Made = new(Make, LazyThreadSafetyMode.ExecutionAndPublication);

    public static string Directory => Made.Value;

    /// <summary>The path of <paramref name="name"/> (e.g. "ca.pem") in <see cref="Directory"/>.</summary>
    public static string File(string name) => Path.Combine(Directory, name);

    /// <summary>ternd serving <paramref name="leaf"/> ("server", "expired", "other"...): its chain and key.</summary>
    public static TerndTls Server(string leaf = "server", string? clientAuth = null) =>
        new(File($"{leaf}.pem"), File($"{leaf}.key"), clientAuth is null ? null : File("client-ca.pem"), clientAuth);

    private static string Make()
    {
        var directory = System.IO.Directory.CreateTempSubdirectory("tern-dotnet-certs-").FullName;
        AppDomain.CurrentDomain.ProcessExit += (_, _) =>
        {
            if (System.IO.Directory.Exists(directory))
                System.IO.Directory.Delete(directory, recursive: true);
        };
        var start = new ProcessStartInfo("bash") { RedirectStandardError = true, RedirectStandardOutput = true };
        start.ArgumentList.Add(Path.Combine(TestData.RepositoryRoot, "scripts", "test-certs.sh"));
        start.ArgumentList.Add(directory);
        using var process = Process.Start(start)!;
        var error = process.StandardError.ReadToEndAsync();
        process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        if (process.ExitCode != 0)
            throw new InvalidOperationException($"scripts/test-certs.sh failed ({process.ExitCode}): {error.Result}");
        return directory;
    }
}

/// <summary>ternd's TLS flags: --tls-certificate, --tls-private-key, and for client certificates --tls-client-ca and --tls-client-auth.</summary>
public sealed record TerndTls(string Certificate, string PrivateKey, string? ClientCa = null, string? ClientAuth = null);
