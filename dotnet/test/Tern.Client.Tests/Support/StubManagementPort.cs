using System.Collections.Concurrent;
using System.Net;
using System.Text;

namespace Tern.Client.Tests.Support;

/// <summary>
/// An in-process HTTP server standing in for a management port: it records each request (method,
/// path, Authorization header, body) and answers what <see cref="Answer"/> returns for it. For the
/// SDK's HTTP client alone; the managers are tested against ternd's real port elsewhere.
/// </summary>
public sealed class StubManagementPort : IAsyncDisposable
{
    private readonly HttpListener _listener = new();
    private readonly Task _loop;

    public sealed record Request(string Method, string Path, string? Authorization, string ContentType, string Body);

    private StubManagementPort(int port)
    {
        Port = port;
        _listener.Prefixes.Add($"http://127.0.0.1:{port}/");
        _listener.Start();
        _loop = Task.Run(ServeAsync);
    }

    public int Port { get; }

    public ConcurrentQueue<Request> Requests { get; } = new();

    /// <summary>The answer to a request: status and body. Null: never answer (the request hangs).</summary>
    public Func<Request, (int Status, string Body)?> Answer { get; set; } = _ => (200, "");

    public static StubManagementPort Start()
    {
        for (var attempt = 0; ; attempt++)
        {
            try
            {
                return new StubManagementPort(ServerProcess.FreePort());
            }
            catch (HttpListenerException) when (attempt < 5)
            {
                // Another process took the port in between: try another.
            }
        }
    }

    private async Task ServeAsync()
    {
        while (_listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync();
            }
            catch (Exception) when (!_listener.IsListening)
            {
                return;
            }
            try
            {
                await ServeAsync(context);
            }
            catch (Exception e) when (e is IOException or HttpListenerException or ObjectDisposedException)
            {
                // The client gave up (its timeout or cancellation) and closed the connection first.
            }
        }
    }

    private async Task ServeAsync(HttpListenerContext context)
    {
        using var reader = new StreamReader(context.Request.InputStream, Encoding.UTF8);
        var request = new Request(context.Request.HttpMethod, context.Request.Url!.AbsolutePath,
            context.Request.Headers["Authorization"], context.Request.ContentType ?? "", await reader.ReadToEndAsync());
        Requests.Enqueue(request);
        if (Answer(request) is not { } answer)
            return; // left open: the client's timeout ends it
        context.Response.StatusCode = answer.Status;
        // A length, not chunks. Left to chunk an empty body, HttpListener once left a stray
        // chunk terminator on the connection, and the client, reusing it, read that "0" as the
        // next response's status line (a fresh-clone CI run, 2026-11-29).
        var body = Encoding.UTF8.GetBytes(answer.Body);
        context.Response.ContentLength64 = body.Length;
        if (body.Length > 0) await context.Response.OutputStream.WriteAsync(body);
        context.Response.Close();
    }

    public async ValueTask DisposeAsync()
    {
        _listener.Stop();
        _listener.Close();
        try
        {
            await _loop;
        }
        catch (ObjectDisposedException)
        {
        }
    }
}
