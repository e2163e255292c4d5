using System.Net;
using System.Net.Sockets;

namespace PerfLab.Load;

/// <summary>What a request is sent with: its template, the checks of its response, where its failures go, the stop signal.</summary>
internal sealed record SendContext(RequestTemplate Template, ResponseChecks Checks, RequestFailures Failures, CancellationToken Stop);

/// <summary>
/// The https:// and HTTP/2 path: the same requests and checks through HttpMessageInvoker, which allocates per request
/// (HttpMessageInvoker rather than HttpClient: no per-request linked CancellationTokenSource, no buffering logic).
/// </summary>
internal sealed class ClientTransport : IDisposable
{
    private readonly SendContext _context;
    private readonly TimeSpan _timeout;
    private readonly Version _version;
    private readonly HttpVersionPolicy _versionPolicy = HttpVersionPolicy.RequestVersionExact;
    private readonly HttpMessageInvoker _client;

    public ClientTransport(SendContext context, LoadPlan loadPlan, int concurrency)
    {
        _context = context;
        _timeout = loadPlan.Timeout;
        _version = loadPlan.Http2 ? HttpVersion.Version20 : HttpVersion.Version11;
        var handler = new SocketsHttpHandler
        {
            MaxConnectionsPerServer = concurrency,
            PooledConnectionLifetime = Timeout.InfiniteTimeSpan,
            PooledConnectionIdleTimeout = TimeSpan.FromMinutes(5),
            ConnectTimeout = loadPlan.ConnectTimeout < loadPlan.Timeout ? loadPlan.ConnectTimeout : loadPlan.Timeout,
            AutomaticDecompression = DecompressionMethods.None,
            AllowAutoRedirect = false,
            UseCookies = false,
            UseProxy = false,
            EnableMultipleHttp2Connections = true,
        };
        _client = new HttpMessageInvoker(handler, disposeHandler: true);
    }

    /// <summary>How requests travel: "HttpClient, HTTP/2" or "HttpClient, HTTP/1.1".</summary>
    public string Name => _version == HttpVersion.Version20 ? "HttpClient, HTTP/2" : "HttpClient, HTTP/1.1";

    public async ValueTask<(RequestOutcome Outcome, int Status, long Bytes)> SendAsync(LoadWorker worker, int index)
    {
        var cts = worker.Timeout!;
        cts.CancelAfter(_timeout);
        RequestOutcome outcome;
        int status = 0;
        long bytes = 0;
        try
        {
            using var request = _context.Template.Message(index, _version, _versionPolicy);
            using var response = await _client.SendAsync(request, cts.Token).ConfigureAwait(false);
            status = (int)response.StatusCode;
            using var body = await response.Content.ReadAsStreamAsync(cts.Token).ConfigureAwait(false);
            outcome = RequestOutcome.Response;
            if (_context.Checks.KeepsBody)
            {
                using var kept = new MemoryStream();
                await body.CopyToAsync(kept, cts.Token).ConfigureAwait(false);
                bytes = kept.Length;
                outcome = _context.Checks.Fail(status, kept.GetBuffer().AsSpan(0, (int)kept.Length))
                    ? RequestOutcome.CheckFailed
                    : RequestOutcome.Response;
            }
            else
            {
                int read;
                while ((read = await body.ReadAsync(worker.Buffer, cts.Token).ConfigureAwait(false)) > 0)
                {
                    bytes += read;
                }
            }
        }
        catch (Exception ex) when (ex is OperationCanceledException or HttpRequestException or IOException or SocketException)
        {
            outcome = _context.Failures.Classify(ex, timedOut: ex is OperationCanceledException);
        }
        if (!cts.TryReset())
        {
            cts.Dispose();
            worker.Timeout = CancellationTokenSource.CreateLinkedTokenSource(_context.Stop);
        }
        return (outcome, status, bytes);
    }

    public void Dispose() => _client.Dispose();
}
