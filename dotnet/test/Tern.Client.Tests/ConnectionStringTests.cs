using Tern.Client.Exceptions;

namespace Tern.Client.Tests;

public class ConnectionStringTests
{
    [Fact]
    public void ParsesHostsAndPorts()
    {
        var parsed = ConnectionString.Parse("memcached://h1:11211, h2:11300,[::1]:5000,h3");
        Assert.Equal("memcached", parsed.Scheme);
        Assert.Equal([("h1", 11211), ("h2", 11300), ("::1", 5000), ("h3", 11211)], parsed.Nodes);
    }

    [Theory]
    [InlineData("memcached://h1", 11211)]
    [InlineData("MEMCACHED://h1", 11211)]
    [InlineData("tern://h1", 11210)]
    [InlineData("tern://[::1]", 11210)]
    [InlineData("couchbase://h1", 11210)]
    [InlineData("couchbases://h1", 11207)]
    [InlineData("COUCHBASES://[::1]", 11207)]
    public void AHostWithoutAPortGetsItsSchemesDefault(string connectionString, int port)
    {
        Assert.Equal(port, Assert.Single(ConnectionString.Parse(connectionString).Nodes).Port);
    }

    [Fact]
    public void CouchbasesIsCouchbaseOverTls()
    {
        var parsed = ConnectionString.Parse("couchbases://h1:1207");
        Assert.True(parsed.IsCouchbase && parsed.IsTls);
        Assert.False(ConnectionString.Parse("couchbase://h1").IsTls);
    }

    [Theory]
    [InlineData("h1:11211")]
    [InlineData("http://h1")]
    [InlineData("memcached://")]
    [InlineData("memcached://h1:0")]
    [InlineData("memcached://h1:port")]
    public void RejectsMalformedStrings(string connectionString)
    {
        Assert.Throws<InvalidArgumentException>(() => ConnectionString.Parse(connectionString));
    }
}
