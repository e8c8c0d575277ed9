using System.Net;
using Tern.Client.Exceptions;
using Tern.Client.Management;

namespace Tern.Client.Tests.Management;

/// <summary>Couchbase's refusals in each of their shapes, read into one message and mapped to the official SDK's exceptions.</summary>
public class ManagementAnswerTests
{
    [Theory]
    [InlineData("""{"errors":{"name":"Bucket with given name already exists"}}""", "name: Bucket with given name already exists")]
    [InlineData("""{"errors":{"ramQuota":"RAM quota cannot be less than 100 MiB","replicaNumber":"ternd keeps no replicas"}}""",
        "ramQuota: RAM quota cannot be less than 100 MiB; replicaNumber: ternd keeps no replicas")]
    [InlineData("""{"_":"Flush is disabled for the bucket"}""", "Flush is disabled for the bucket")]
    [InlineData("""{"message":"Forbidden. User needs the following permissions","permissions":["cluster.buckets!create"]}""",
        "Forbidden. User needs the following permissions; cluster.buckets!create")]
    [InlineData("\"Scope with name \\\"s\\\" is not found\"", "Scope with name \"s\" is not found")]
    [InlineData("Requested resource not found.\r\n", "Requested resource not found.")]
    [InlineData("", "(no message)")]
    [InlineData("{\"unexpected\":1}", "{\"unexpected\":1}")]
    public void TheMessageIsReadFromEveryShape(string body, string message) =>
        Assert.Equal(message, ManagementAnswer.MessageOf(body));

    private static Exception Bucket(HttpStatusCode status, string body) =>
        ManagementErrors.ForBucket(new ManagementAnswer(status, body, "POST /pools/default/buckets"), "travel");

    private static Exception Collections(HttpStatusCode status, string body, string? collection = "c") =>
        ManagementErrors.ForCollections(new ManagementAnswer(status, body, "POST /pools/default/buckets/travel/scopes"), "travel", "s", collection);

    [Fact]
    public void BucketRefusalsMapToTheirExceptions()
    {
        Assert.Equal("travel", Assert.IsType<BucketExistsException>(
            Bucket(HttpStatusCode.BadRequest, """{"errors":{"name":"Bucket with given name already exists"}}""")).BucketName);
        Assert.IsType<BucketNotFlushableException>(Bucket(HttpStatusCode.BadRequest, """{"_":"Flush is disabled for the bucket"}"""));
        Assert.Equal("travel", Assert.IsType<BucketNotFoundException>(
            Bucket(HttpStatusCode.NotFound, "Requested resource not found.\r\n")).BucketName);
    }

    [Fact]
    public void AnyOtherRefusalNamesTheRequestStatusAndMessage()
    {
        var error = Assert.IsType<ManagementException>(Bucket(HttpStatusCode.BadRequest,
            """{"errors":{"replicaNumber":"replicas are not supported: ternd keeps one copy"}}"""));
        Assert.Equal(400, error.HttpStatus);
        Assert.Equal("replicaNumber: replicas are not supported: ternd keeps one copy", error.ServerMessage);
        Assert.Equal("POST /pools/default/buckets answered 400 BadRequest: replicaNumber: replicas are not supported: ternd keeps one copy",
            error.Message);
        var forbidden = Assert.IsType<ManagementException>(Collections(HttpStatusCode.Forbidden,
            """{"message":"Forbidden. User needs the following permissions","permissions":["cluster.collection[travel:s:.]!write"]}"""));
        Assert.Equal(403, forbidden.HttpStatus);
        Assert.Contains("cluster.collection[travel:s:.]!write", forbidden.Message);
    }

    [Theory]
    [InlineData(HttpStatusCode.BadRequest, """{"errors":{"name":"Scope with name \"s\" already exists"}}""", null, typeof(ScopeExistsException))]
    [InlineData(HttpStatusCode.BadRequest, "\"Scope with this name already exists\"", null, typeof(ScopeExistsException))]
    [InlineData(HttpStatusCode.BadRequest, """{"errors":{"name":"Collection with name \"c\" in scope \"s\" already exists"}}""", "c",
        typeof(CollectionExistsException))]
    [InlineData(HttpStatusCode.NotFound, "\"Scope with name \\\"s\\\" is not found\"", null, typeof(ScopeNotFoundException))]
    [InlineData(HttpStatusCode.NotFound, "\"Scope with name \\\"s\\\" is not found\"", "c", typeof(ScopeNotFoundException))]
    [InlineData(HttpStatusCode.NotFound, "\"Collection with name \\\"c\\\" in scope \\\"s\\\" is not found\"", "c",
        typeof(CollectionNotFoundException))]
    [InlineData(HttpStatusCode.NotFound, "Requested resource not found.\r\n", "c", typeof(BucketNotFoundException))]
    [InlineData(HttpStatusCode.BadRequest, """{"errors":{"name":"Name is invalid"}}""", "c", typeof(ManagementException))]
    [InlineData(HttpStatusCode.InternalServerError, "\"Collection with name \\\"c\\\" in scope \\\"s\\\" is not found\"", "c",
        typeof(ManagementException))]
    public void CollectionRefusalsMapToTheirExceptions(HttpStatusCode status, string body, string? collection, Type expected) =>
        Assert.IsType(expected, Collections(status, body, collection));
}
