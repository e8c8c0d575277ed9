using BenchmarkDotNet.Running;
using Tern.Benchmarks.Sdk;
using Tern.Benchmarks.Seeds;

namespace Tern.Benchmarks;

/// <summary>
/// `Tern.Benchmarks sdk ...` runs the end-to-end load against live servers (see SdkLoadOptions),
/// `Tern.Benchmarks sdk-report FILE...` prints the table of rows gathered as JSON lines (SdkReport),
/// `Tern.Benchmarks transactions ...` runs the transfer transactions of `make bench-transactions` (TransferLoad);
/// any other arguments go to BenchmarkDotNet, e.g. `--filter '*'` for every seed table.
/// </summary>
public static class Program
{
    public static async Task<int> Main(string[] args)
    {
        if (args.Length > 0 && args[0] == "sdk")
        {
            return await SdkLoad.RunAsync(args[1..]);
        }
        if (args.Length > 0 && args[0] == "transactions")
        {
            return await Transactions.TransferLoad.RunAsync(args[1..]);
        }
        if (args.Length > 0 && args[0] == "sdk-report")
        {
            return SdkReport.Run(args[1..]);
        }

        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, SeedConfig.Create());
        return 0;
    }
}
