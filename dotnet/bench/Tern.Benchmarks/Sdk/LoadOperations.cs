using Tern.Client;

namespace Tern.Benchmarks.Sdk;

/// <summary>
/// One kind of SDK call the load runs. A struct constraint lets the worker loop await the SDK's
/// ValueTask directly, so the harness adds no allocation per operation of its own.
/// </summary>
internal interface ILoadOperation<TResult>
{
    string Name { get; }

    ValueTask<TResult> StartAsync(string key);

    /// <summary>Releases what the result holds (a Get's pooled buffer).</summary>
    void Finish(TResult result);
}

internal readonly struct GetLoad(Collection collection) : ILoadOperation<GetResult>
{
    public string Name => "Get";

    public ValueTask<GetResult> StartAsync(string key) => collection.GetAsync(key);

    public void Finish(GetResult result) => result.Dispose();
}

internal readonly struct UpsertLoad(Collection collection, byte[] value) : ILoadOperation<MutationResult>
{
    public string Name => "Upsert";

    public ValueTask<MutationResult> StartAsync(string key) => collection.UpsertAsync(key, value);

    public void Finish(MutationResult result)
    {
    }
}
