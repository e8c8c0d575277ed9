// A Tern.Client process that dies in the middle of a transaction, for the cleanup tests in
// Tern.Client.Tests/Transactions/Interop (another client's cleanup, of Tern.Client or of the
// official Node.js SDK, must finish what it leaves):
//   stage-and-die CONNSTR REPLACE_KEY INSERT_KEY
//     stages a replace of REPLACE_KEY ({ "v": 2 }) and an insert of INSERT_KEY ({ "v": 3 }),
//     prints "staged" and kills itself (SIGKILL) before the commit point: its attempt stays PENDING.
//   commit-and-die CONNSTR KEY_PREFIX COUNT
//     replaces KEY_PREFIX0 .. KEY_PREFIX{COUNT-1} with { "v": 2 } and inserts KEY_PREFIXinserted
//     ({ "v": 3 }), printing "staged" after the
//     first, then commits: once its ATR entry says COMMITTED it prints "committed" and stops there,
//     every document still staged, until the test kills it.
// Its transactions expire after 2 s and it runs no cleanup of its own.
using System.Diagnostics;
using Tern.Client;
using Tern.Client.Transactions;

var (command, connectionString) = (args[0], args[1]);
await using var cluster = await Cluster.ConnectAsync(connectionString, new ClusterOptions
{
    UserName = "Administrator",
    Password = "password",
    KvTimeout = TimeSpan.FromSeconds(10),
    Transactions = new TransactionsConfig
    {
        ExpirationTime = TimeSpan.FromSeconds(2),
        CleanupLostAttempts = false,
        CleanupClientAttempts = false,
        AfterCommitPointHook = async () =>
        {
            Console.Out.WriteLine("committed");
            Console.Out.Flush();
            await Task.Delay(Timeout.Infinite);
        },
    },
});
var collection = cluster.Bucket("default").DefaultCollection();
switch (command)
{
    case "stage-and-die":
        await cluster.Transactions.RunAsync(async ctx =>
        {
            await ctx.ReplaceAsync(await ctx.GetAsync(collection, args[2]), new { v = 2 });
            await ctx.InsertAsync(collection, args[3], new { v = 3 });
            Console.Out.WriteLine("staged");
            Console.Out.Flush();
            Process.GetCurrentProcess().Kill(); // SIGKILL: no rollback, no cleanup
        });
        break;
    case "commit-and-die":
        var count = int.Parse(args[3]);
        await cluster.Transactions.RunAsync(async ctx =>
        {
            for (var i = 0; i < count; i++)
            {
                await ctx.ReplaceAsync(await ctx.GetAsync(collection, $"{args[2]}{i}"), new { v = 2 });
                if (i == 0)
                {
                    Console.Out.WriteLine("staged");
                    Console.Out.Flush();
                }
            }
            await ctx.InsertAsync(collection, $"{args[2]}inserted", new { v = 3 });
        }, new TransactionOptions { Timeout = TimeSpan.FromSeconds(5) });
        break; // not reached: the hook waits for the kill
    default:
        Console.Error.WriteLine($"unknown command {command}");
        return 2;
}
return 0;
