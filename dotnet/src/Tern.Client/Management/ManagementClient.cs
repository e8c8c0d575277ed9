using System.Net;
using System.Net.Http.Headers;
using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.Timing;

namespace Tern.Client.Management;

/// <summary>
/// Sends the managers' requests to the cluster's management (HTTP) port: one HttpClient per cluster
/// (created on first use, disposed with the cluster), the cluster's credentials as Basic auth, the
/// management timeout of the call. Where the port is comes from <see cref="ManagementEndpointFinder"/>.
/// A node that cannot be reached is skipped for the next one when the request cannot have been
/// applied (a GET, or a connection that was never made).
/// </summary>
internal sealed class ManagementClient : IDisposable
{
    private readonly ClusterOptions _options;
    private readonly Func<CancellationToken, Task<ManagementEndpointFinder.Found>> _find;
    private readonly Lazy<HttpClient> _http;

    public ManagementClient(ClusterOptions options, Func<CancellationToken, Task<ManagementEndpointFinder.Found>> find)
    {
        _options = options;
        _find = find;
        _http = new Lazy<HttpClient>(CreateHttpClient, LazyThreadSafetyMode.ExecutionAndPublication);
    }

    /// <summary>Sends one request (a form body when <paramref name="form"/> is not null) and returns whatever the server answered.</summary>
    public async Task<ManagementAnswer> SendAsync(HttpMethod method, string path, IReadOnlyList<KeyValuePair<string, string>>? form,
        ManagementOptions? options)
    {
        var timeout = options?.Timeout ?? _options.ManagementTimeout;
        var cancellation = options?.CancellationToken ?? CancellationToken.None;
        var what = $"{method} {path}";
        using var deadline = new CancellationTokenSource(TimeoutLimit.Cap(timeout), _options.TimeProvider);
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(deadline.Token, cancellation);
        try
        {
            var found = await _find(linked.Token).ConfigureAwait(false);
            if (found.Endpoints.Count == 0)
                throw new ServiceNotAvailableException($"{what}: the management service is not available: {found.WhyNone}");
            HttpRequestException? failure = null;
            foreach (var endpoint in found.Endpoints)
            {
                try
                {
                    return await SendToAsync(endpoint, method, path, form, what, linked.Token).ConfigureAwait(false);
                }
                catch (HttpRequestException e) when (method == HttpMethod.Get || e.HttpRequestError == HttpRequestError.ConnectionError)
                {
                    failure = e;
                }
                catch (HttpRequestException e)
                {
                    throw new ManagementException(
                        $"{what} to {endpoint.BaseUri} failed after it was sent, so it may or may not have been applied: {e.Message}",
                        0, e.Message, e);
                }
            }
            throw new ManagementException(
                $"{what}: no management node answered ({string.Join(", ", found.Endpoints.Select(e => e.BaseUri))}): {failure!.Message}",
                0, failure.Message, failure);
        }
        catch (OperationCanceledException) when (deadline.IsCancellationRequested && !cancellation.IsCancellationRequested)
        {
            var message = $"{what} timed out after {timeout.TotalMilliseconds:0} ms";
            throw method == HttpMethod.Get
                ? new UnambiguousTimeoutException(message + "; it changes nothing", null)
                : new AmbiguousTimeoutException(message + "; it may or may not have been applied", null);
        }
    }

    private async Task<ManagementAnswer> SendToAsync(ManagementEndpoint endpoint, HttpMethod method, string path,
        IReadOnlyList<KeyValuePair<string, string>>? form, string what, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(method, new Uri(endpoint.BaseUri, path));
        if (form is not null)
            request.Content = new FormUrlEncodedContent(form);
        using var response = await _http.Value.SendAsync(request, cancellationToken).ConfigureAwait(false);
        var body = await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false);
        if (response.StatusCode == HttpStatusCode.Unauthorized)
            throw new AuthenticationFailureException(
                $"{what}: the management port at {endpoint.BaseUri} refused the credentials of '{_options.UserName}' (401)");
        return new ManagementAnswer(response.StatusCode, body, what);
    }

    private HttpClient CreateHttpClient()
    {
        var handler = new SocketsHttpHandler { ConnectTimeout = _options.ConnectTimeout, AllowAutoRedirect = false };
        var client = new HttpClient(handler) { Timeout = Timeout.InfiniteTimeSpan };
        client.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Basic",
            Convert.ToBase64String(Encoding.UTF8.GetBytes($"{_options.UserName}:{_options.Password}")));
        client.DefaultRequestHeaders.UserAgent.ParseAdd($"tern-dotnet/{typeof(ManagementClient).Assembly.GetName().Version}");
        return client;
    }

    public void Dispose()
    {
        if (_http.IsValueCreated)
            _http.Value.Dispose();
    }
}
