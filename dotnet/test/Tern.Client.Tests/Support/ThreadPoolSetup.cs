using System.Runtime.CompilerServices;

namespace Tern.Client.Tests.Support;

internal static class ThreadPoolSetup
{
    /// <summary>
    /// Test classes run in parallel on a 2-core machine and some block pool threads (process
    /// start/stop); without headroom the pool's slow thread injection delays I/O continuations
    /// by hundreds of milliseconds and timing assertions become flaky.
    /// </summary>
    [ModuleInitializer]
    internal static void GiveThePoolHeadroom() => ThreadPool.SetMinThreads(32, 32);
}
