using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.Management;
using Tern.Client.Tests.Support;

namespace Tern.Client.Tests.Management;

/// <summary>
/// The managers' HTTP path against an in-process stub port: what goes out (method, path, Basic
/// auth, form) and what each answer becomes. Real behaviour against ternd: ManagerTests.
/// </summary>
public sealed class ManagementClientTests : IAsyncLifetime
{
    private static readonly ClusterOptions Options = new() { UserName = "Administrator", Password = "pässword" };

    private StubManagementPort _stub = null!;

    public Task InitializeAsync()
    {
        _stub = StubManagementPort.Start();
        return Task.CompletedTask;
    }

    public async Task DisposeAsync() => await _stub.DisposeAsync();

    private ManagementClient Client(ClusterOptions? options = null, params ManagementEndpoint[] endpoints) =>
        new(options ?? Options, _ => Task.FromResult(new ManagementEndpointFinder.Found(
            endpoints.Length > 0 ? endpoints : [new ManagementEndpoint("127.0.0.1", _stub.Port)], "the test gave none")));

    [Fact]
    public async Task ARequestCarriesTheClustersCredentialsAsBasicAuth()
    {
        _stub.Answer = _ => (200, """[{"name":"a","bucketType":"membase","quota":{"rawRAM":104857600}},{"name":"b","bucketType":"ephemeral"}]""");
        using var client = Client();
        var buckets = await new BucketManager(client).GetAllBucketsAsync();
        Assert.Equal(["a", "b"], buckets.Keys.Order());
        Assert.Equal(100, buckets["a"].RamQuotaMB);
        var request = Assert.Single(_stub.Requests);
        Assert.Equal(("GET", "/pools/default/buckets"), (request.Method, request.Path));
        Assert.Equal("Basic " + Convert.ToBase64String(Encoding.UTF8.GetBytes("Administrator:pässword")), request.Authorization);
    }

    [Fact]
    public async Task ACreateSendsAFormAndAnExistingNameIsBucketExists()
    {
        _stub.Answer = _ => (400, """{"errors":{"name":"Bucket with given name already exists"}}""");
        using var client = Client();
        var error = await Assert.ThrowsAsync<BucketExistsException>(() =>
            new BucketManager(client).CreateBucketAsync(new BucketSettings { Name = "travel sample", RamQuotaMB = 128, FlushEnabled = true }));
        Assert.Equal("travel sample", error.BucketName);
        var request = Assert.Single(_stub.Requests);
        Assert.Equal(("POST", "/pools/default/buckets"), (request.Method, request.Path));
        Assert.StartsWith("application/x-www-form-urlencoded", request.ContentType);
        Assert.StartsWith("name=travel+sample&bucketType=couchbase&ramQuotaMB=128&flushEnabled=1&", request.Body);
    }

    [Fact]
    public async Task NamesAreEscapedInPathsAndCollectionSettingsGoInTheForm()
    {
        using var client = Client();
        var manager = new CollectionManager(client, "my bucket", null);
        await manager.CreateCollectionAsync("app", "c%1", new CreateCollectionSettings(CreateCollectionSettings.NoExpiry));
        await manager.CreateCollectionAsync("app", "d", new CreateCollectionSettings(TimeSpan.FromMinutes(2), history: false));
        await manager.DropCollectionAsync("app", "c%1");
        Assert.Equal(
        [
            new("POST", "/pools/default/buckets/my%20bucket/scopes/app/collections", null, "", "name=c%251&maxTTL=-1"),
            new("POST", "/pools/default/buckets/my%20bucket/scopes/app/collections", null, "", "name=d&maxTTL=120&history=false"),
            new StubManagementPort.Request("DELETE", "/pools/default/buckets/my%20bucket/scopes/app/collections/c%251", null, "", ""),
        ], _stub.Requests.Select(r => r with { Authorization = null, ContentType = "" }));
    }

    [Fact]
    public async Task A401IsAnAuthenticationFailure()
    {
        _stub.Answer = _ => (401, "");
        using var client = Client();
        var error = await Assert.ThrowsAsync<AuthenticationFailureException>(() => new BucketManager(client).GetBucketAsync("b"));
        Assert.Contains("refused the credentials of 'Administrator' (401)", error.Message);
    }

    [Fact]
    public async Task AnUnreadableSuccessIsAManagementExceptionNamingTheRequest()
    {
        _stub.Answer = _ => (200, "<html>");
        using var client = Client();
        var error = await Assert.ThrowsAsync<ManagementException>(() => new CollectionManager(client, "b", null).GetAllScopesAsync());
        Assert.StartsWith("GET /pools/default/buckets/b/scopes answered 200 with a body the SDK cannot read", error.Message);
    }

    [Fact]
    public async Task WithoutAManagementNodeTheCallSaysTheServiceIsNotAvailableAndWhy()
    {
        using var client = new ManagementClient(Options, _ => Task.FromResult(new ManagementEndpointFinder.Found([], "no mgmt in the map")));
        var error = await Assert.ThrowsAsync<ServiceNotAvailableException>(() => new BucketManager(client).FlushBucketAsync("b"));
        Assert.Equal("POST /pools/default/buckets/b/controller/doFlush: the management service is not available: no mgmt in the map",
            error.Message);
        Assert.Empty(_stub.Requests);
    }

    [Fact]
    public async Task AReadSkipsANodeThatRefusesConnections()
    {
        using var client = Client(null, new ManagementEndpoint("127.0.0.1", ServerProcess.FreePort()), new ManagementEndpoint("127.0.0.1", _stub.Port));
        _stub.Answer = _ => (200, "[]");
        Assert.Empty(await new BucketManager(client).GetAllBucketsAsync());
        Assert.Single(_stub.Requests);
    }

    [Fact]
    public async Task AnUnansweredReadTimesOutUnambiguouslyAChangeAmbiguouslyAndCancellationCancels()
    {
        _stub.Answer = _ => null;
        using var client = Client(Options with { ManagementTimeout = TimeSpan.FromMilliseconds(300) });
        var read = await Assert.ThrowsAsync<UnambiguousTimeoutException>(() => new BucketManager(client).GetBucketAsync("b"));
        Assert.StartsWith("GET /pools/default/buckets/b timed out after 300 ms", read.Message);
        await Assert.ThrowsAsync<AmbiguousTimeoutException>(() =>
            new BucketManager(client).DropBucketAsync("b", new DropBucketOptions { Timeout = TimeSpan.FromMilliseconds(200) }));
        using var patient = Client();
        using var cancelled = new CancellationTokenSource();
        var pending = new BucketManager(patient).GetAllBucketsAsync(new GetAllBucketsOptions { CancellationToken = cancelled.Token });
        await cancelled.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => pending);
    }
}
