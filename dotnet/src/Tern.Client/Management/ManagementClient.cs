using System.Net;
using System.Net.Http.Headers;
using System.Text;
using Tern.Client.Couchbase;
using Tern.Client.Exceptions;
using Tern.Client.IO;
using Tern.Client.Timing;

namespace Tern.Client.Management;

/// <summary>
/// Sends the managers' requests to the cluster's management (HTTP) port: one HttpClient per cluster
/// (created on first use, disposed with the cluster), the cluster's credentials as Basic auth, the
/// management timeout of the call. Where the port is comes from <see cref="ManagementEndpointFinder"/>.
/// Over couchbases:// it speaks HTTPS to the "mgmtSSL" port, checking the server's certificate as
/// the KV connections do; with a client certificate it sends that instead of Basic auth.
/// A node that cannot be reached is skipped for the next one when the request cannot have been
/// applied (a GET, or a connection that was never made).
/// </summary>
internal sealed class ManagementClient : IDisposable
{
    private readonly ClusterOptions _options;
    private readonly Func<CancellationToken, Task<ManagementEndpointFinder.Found>> _find;
    private readonly Lazy<HttpClient> _http;

    private readonly string? _userName;
    private readonly string? _password;
    private readonly TlsConnector? _tls;

    /// <summary>
    /// <paramref name="credentials"/>: who logs in (null: <see cref="ClusterOptions.UserName"/> and
    /// <see cref="ClusterOptions.Password"/>); <paramref name="tls"/>: how HTTPS checks the server (null: plain HTTP).
    /// </summary>
    public ManagementClient(ClusterOptions options, Func<CancellationToken, Task<ManagementEndpointFinder.Found>> find,
        CouchbaseCredentials? credentials = null, TlsConnector? tls = null)
    {
        _options = options;
        _find = find;
        _tls = tls;
        if (credentials is null)
            (_userName, _password) = (options.UserName, options.Password);
        else if (!credentials.ByCertificate)
            (_userName, _password) = (credentials.UserName, credentials.Password);
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
                catch (HttpRequestException e) when (CertificateRefusal(e) is { } refusal)
                {
                    throw refusal;
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
                $"{what}: the management port at {endpoint.BaseUri} refused the credentials of '{_userName ?? "(client certificate)"}' (401)");
        return new ManagementAnswer(response.StatusCode, body, what);
    }

    // Retrying another node does not help: they share the certificate's CA and the client's settings.
    private static CertificateValidationException? CertificateRefusal(Exception e)
    {
        for (var cause = e.InnerException; cause is not null; cause = cause.InnerException)
        {
            if (cause is CertificateValidationException refusal)
                return refusal;
        }
        return null;
    }

    private HttpClient CreateHttpClient()
    {
        var handler = new SocketsHttpHandler { ConnectTimeout = _options.ConnectTimeout, AllowAutoRedirect = false };
        if (_tls is not null)
            handler.SslOptions = _tls.HttpOptions();
        var client = new HttpClient(handler) { Timeout = Timeout.InfiniteTimeSpan };
        if (_userName is not null)
            client.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Basic",
                Convert.ToBase64String(Encoding.UTF8.GetBytes($"{_userName}:{_password}")));
        client.DefaultRequestHeaders.UserAgent.ParseAdd($"tern-dotnet/{typeof(ManagementClient).Assembly.GetName().Version}");
        return client;
    }

    public void Dispose()
    {
        if (_http.IsValueCreated)
            _http.Value.Dispose();
    }
}
