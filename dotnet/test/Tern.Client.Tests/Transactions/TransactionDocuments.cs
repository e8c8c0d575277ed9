using System.Text.Json.Nodes;

namespace Tern.Client.Tests.Transactions;

/// <summary>What the transaction tests read back through plain KV: a document's <c>v</c>, and whether a transaction left its links in it.</summary>
internal static class TransactionDocuments
{
    /// <summary>The number <c>v</c> of the document's committed body.</summary>
    public static async Task<int> ValueOf(this Collection collection, string key)
    {
        using var doc = await collection.GetAsync(key);
        return doc.ContentAs<JsonObject>()!["v"]!.GetValue<int>();
    }

    /// <summary>Fails if the document still carries a transaction's links (the txn XATTR).</summary>
    public static async Task AssertNoLinks(this Collection collection, string key)
    {
        using var links = await collection.LookupInAsync(key, specs => specs.Exists("txn", isXattr: true));
        Assert.False(links.Exists(0), $"{key} still carries txn");
    }
}
