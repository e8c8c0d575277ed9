namespace Tern.Benchmarks.Sdk;

public static class SdkLoad
{
    public static Task<int> RunAsync(string[] args)
    {
        Console.Error.WriteLine("sdk mode: not written yet");
        return Task.FromResult(1);
    }
}
