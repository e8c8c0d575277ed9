using System.Text.Json.Serialization;

namespace Tern.Client.Tests.Support;

public sealed record Person(string Name, int Age);

[JsonSerializable(typeof(Person))]
public sealed partial class TestJsonContext : JsonSerializerContext;
