using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>
/// One user's reusable pieces: its HTTP/1.1 connection, or else a body buffer and a timeout source for HttpClient;
/// a random stream. Nothing per request.
/// </summary>
internal sealed class LoadWorker
{
    public readonly int Index;
    public readonly Random Random;
    public readonly Http11Connection? Connection;
    public readonly byte[] Buffer = [];
    public CancellationTokenSource? Timeout;

    public LoadWorker(int index, ScenarioRun run)
    {
        Index = index;
        Random = new Random(HashCode.Combine(run.Plan.Feed.Seed, index));
        Connection = run.OpenConnection();
        if (Connection is null)
        {
            Buffer = new byte[16 * 1024];
            Timeout = CancellationTokenSource.CreateLinkedTokenSource(run.Stop);
        }
    }
}

/// <summary>
/// The live state of one scenario during a run: its client, its URLs, its recorders, its stop signal.
/// Plain http:// targets over HTTP/1.1 go through <see cref="Http11Connection"/>s, one per user, watched for timeouts
/// by one timer; https:// and HTTP/2 go through <see cref="HttpMessageInvoker"/>.
/// </summary>
internal sealed class ScenarioRun : IDisposable
{
    private readonly CancellationTokenSource _stop;
    private readonly TimeSpan _timeout;
    private readonly Version _version;
    private readonly HttpVersionPolicy _versionPolicy;
    private long _cursor = -1;
    private long _budget;
    private int _activeUsers;
    private volatile bool _measuring;
    private string? _firstError;
    private readonly byte[][]? _requests;
    private readonly EndPoint? _endPoint;
    private readonly List<Http11Connection> _connections = [];
    private readonly Timer? _watchdog;
    private readonly HttpMessageInvoker? _client; // https:// and HTTP/2 only

    public ScenarioRun(ScenarioPlan plan, Uri[] uris, LoadPlan loadPlan, CancellationToken runStop)
    {
        Plan = plan;
        Uris = uris;
        _timeout = loadPlan.Timeout;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(runStop);
        _version = loadPlan.Http2 ? HttpVersion.Version20 : HttpVersion.Version11;
        _versionPolicy = HttpVersionPolicy.RequestVersionExact;
        Recorders = new RecorderSet(uncorrected: plan.Model is OpenModel);
        Baseline = Recorders.Snapshot();
        InFlight = new InFlightRequests(plan.Model.Concurrency);
        _budget = plan.MaxRequests ?? long.MaxValue;
        if (!loadPlan.Http2 && uris.All(u => u.Scheme == Uri.UriSchemeHttp && u.Authority == uris[0].Authority))
        {
            _requests = [.. uris.Select(Http11Connection.EncodeGet)];
            _endPoint = Http11Connection.EndPointOf(uris[0]);
            var period = TimeSpan.FromMilliseconds(Math.Clamp(_timeout.TotalMilliseconds / 10, 10, 250));
            _watchdog = new Timer(_ => AbortLateRequests(), null, period, period);
            _stop.Token.Register(AbortAllRequests);
            // Registered last, so it runs first (callbacks run in reverse order): the picture before the aborts.
            _stop.Token.Register(InFlight.Capture);
            return;
        }
        var handler = new SocketsHttpHandler
        {
            MaxConnectionsPerServer = plan.Model.Concurrency,
            PooledConnectionLifetime = Timeout.InfiniteTimeSpan,
            PooledConnectionIdleTimeout = TimeSpan.FromMinutes(5),
            ConnectTimeout = loadPlan.ConnectTimeout < loadPlan.Timeout ? loadPlan.ConnectTimeout : loadPlan.Timeout,
            AutomaticDecompression = DecompressionMethods.None,
            AllowAutoRedirect = false,
            UseCookies = false,
            UseProxy = false,
            EnableMultipleHttp2Connections = true,
        };
        // HttpMessageInvoker rather than HttpClient: no per-request linked CancellationTokenSource, no buffering logic.
        _client = new HttpMessageInvoker(handler, disposeHandler: true);
        _stop.Token.Register(InFlight.Capture);
    }

    /// <summary>How requests travel: "HTTP/1.1 sockets, inline completions", "HTTP/1.1 sockets", or "HttpClient, HTTP/2" (or HTTP/1.1).</summary>
    public string Transport => _requests is null
        ? (_version == HttpVersion.Version20 ? "HttpClient, HTTP/2" : "HttpClient, HTTP/1.1")
        : Http11Connection.InlineCompletions ? "HTTP/1.1 sockets, inline completions" : "HTTP/1.1 sockets";

    public ScenarioPlan Plan { get; }
    public Uri[] Uris { get; }
    public RecorderSet Recorders { get; }
    public InFlightRequests InFlight { get; }
    public CancellationToken Stop => _stop.Token;
    public RecordingSnapshot Baseline { get; private set; }
    public long MeasureStart { get; private set; } = Stopwatch.GetTimestamp();
    public long MeasureEnd { get; set; }
    public bool Measuring => _measuring;
    public int ActiveUsers => Volatile.Read(ref _activeUsers);
    public bool BudgetExhausted => Volatile.Read(ref _budget) <= 0;
    /// <summary>The message of the first transport error, kept to explain a target that never answered.</summary>
    public string? FirstError => Volatile.Read(ref _firstError);

    public void StopAfter(TimeSpan delay) => _stop.CancelAfter(delay);

    public void StopNow() => _stop.Cancel();

    public void BeginMeasurement()
    {
        Baseline = Recorders.Snapshot();
        MeasureStart = Stopwatch.GetTimestamp();
        _measuring = true;
    }

    public void UserStarted() => Interlocked.Increment(ref _activeUsers);

    public void UserStopped() => Interlocked.Decrement(ref _activeUsers);

    /// <summary>Warm-up requests are free; measured ones draw from the request budget (-n).</summary>
    public bool TryTakeBudget() => !_measuring || Plan.MaxRequests is null || Interlocked.Decrement(ref _budget) >= 0;

    public int NextIndex(LoadWorker worker)
    {
        var count = Uris.Length;
        if (count == 1)
        {
            return 0;
        }
        if (Plan.Feed.Order == FeedOrder.Random)
        {
            return worker.Random.Next(count);
        }
        return (int)((ulong)Interlocked.Increment(ref _cursor) % (ulong)count);
    }

    /// <summary>A new user's connection, watched by this run; null when the scenario goes through HttpClient.</summary>
    public Http11Connection? OpenConnection()
    {
        if (_requests is null)
        {
            return null;
        }
        var connection = new Http11Connection(_endPoint!, _stop.Token);
        lock (_connections)
        {
            _connections.Add(connection);
        }
        return connection;
    }

    private void AbortLateRequests()
    {
        var deadline = Stopwatch.GetTimestamp() - (long)(_timeout.TotalSeconds * Stopwatch.Frequency);
        lock (_connections)
        {
            foreach (var connection in _connections)
            {
                connection.AbortIfOlderThan(deadline);
            }
        }
    }

    private void AbortAllRequests()
    {
        lock (_connections)
        {
            foreach (var connection in _connections)
            {
                connection.Abort();
            }
        }
    }

    /// <summary>
    /// Sends one request and records it on the current thread's recorder. <paramref name="intended"/> is the
    /// Stopwatch timestamp the request was due (open model) or 0. Returns false when the run is stopping.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> SendAsync(LoadWorker worker, long intended)
    {
        var index = NextIndex(worker);
        var start = Stopwatch.GetTimestamp();
        Recorders.Current.NoteSend(start, intended);
        InFlight.Begin(worker.Index, intended != 0 ? Math.Min(intended, start) : start);

        int status = 0;
        long bytes = 0;
        Outcome failure;
        if (worker.Connection is { } connection)
        {
            try
            {
                var response = await connection.SendAsync(_requests![index]).ConfigureAwait(false);
                status = response.Status;
                bytes = response.BodyBytes;
                failure = Outcome.Response;
            }
            catch (Exception ex) when (ex is SocketException or IOException or ObjectDisposedException or OperationCanceledException)
            {
                failure = Failure(ex, connection.TimedOut);
            }
        }
        else
        {
            (failure, status, bytes) = await SendWithClientAsync(worker, Uris[index]).ConfigureAwait(false);
        }
        var end = Stopwatch.GetTimestamp();
        InFlight.End(worker.Index);

        // An aborted request is neither a success nor an error: the run ended while it was in flight (InFlight has it).
        if (failure == Outcome.Stopped)
        {
            return false;
        }
        Record(Recorders.Current, failure, status, bytes, end - (intended != 0 ? intended : start), end - start);
        return !Stop.IsCancellationRequested;
    }

    /// <summary>One completed request: a response (latency from the intended send time, and from the actual one), or an error by kind.</summary>
    private static void Record(ThreadRecorder recorder, Outcome outcome, int status, long bytes, long latencyTicks, long uncorrectedTicks)
    {
        recorder.Requests++;
        switch (outcome)
        {
            case Outcome.Response:
                recorder.Status[Math.Min(status, ThreadRecorder.StatusSlots - 1)]++;
                recorder.Bytes += bytes;
                recorder.Latency.Record(ToMicros(latencyTicks));
                recorder.Uncorrected?.Record(ToMicros(uncorrectedTicks));
                break;
            case Outcome.Timeout:
                recorder.Timeouts++;
                break;
            case Outcome.Refused:
                recorder.Refused++;
                break;
            default:
                recorder.ConnectionErrors++;
                break;
        }
    }

    private async ValueTask<(Outcome, int Status, long Bytes)> SendWithClientAsync(LoadWorker worker, Uri uri)
    {
        var cts = worker.Timeout!;
        cts.CancelAfter(_timeout);
        Outcome failure;
        int status = 0;
        long bytes = 0;
        try
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, uri) { Version = _version, VersionPolicy = _versionPolicy };
            using var response = await _client!.SendAsync(request, cts.Token).ConfigureAwait(false);
            status = (int)response.StatusCode;
            using var body = await response.Content.ReadAsStreamAsync(cts.Token).ConfigureAwait(false);
            int read;
            while ((read = await body.ReadAsync(worker.Buffer, cts.Token).ConfigureAwait(false)) > 0)
            {
                bytes += read;
            }
            failure = Outcome.Response;
        }
        catch (Exception ex) when (ex is OperationCanceledException or HttpRequestException or IOException or SocketException)
        {
            failure = Failure(ex, timedOut: ex is OperationCanceledException);
        }
        if (!cts.TryReset())
        {
            cts.Dispose();
            worker.Timeout = CancellationTokenSource.CreateLinkedTokenSource(Stop);
        }
        return (failure, status, bytes);
    }

    /// <summary>What a failed request counts as, whichever transport it took; connection failures are noted for the report.</summary>
    private Outcome Failure(Exception ex, bool timedOut)
    {
        if (Stop.IsCancellationRequested)
        {
            return Outcome.Stopped;
        }
        if (timedOut)
        {
            return Outcome.Timeout;
        }
        NoteError(ex);
        return ex is SocketException { SocketErrorCode: SocketError.ConnectionRefused }
            or HttpRequestException { InnerException: SocketException { SocketErrorCode: SocketError.ConnectionRefused } }
            ? Outcome.Refused
            : Outcome.ConnectionError;
    }

    private void NoteError(Exception ex)
    {
        if (Volatile.Read(ref _firstError) is null)
        {
            var message = ex.InnerException is { } inner && inner.Message != ex.Message ? $"{ex.Message} ({inner.Message})" : ex.Message;
            Interlocked.CompareExchange(ref _firstError, message, null);
        }
    }

    private static readonly double s_microsPerTick = 1_000_000.0 / Stopwatch.Frequency;

    public static long ToMicros(long ticks) => (long)(ticks * s_microsPerTick);

    public void Dispose()
    {
        _watchdog?.Dispose();
        lock (_connections)
        {
            foreach (var connection in _connections)
            {
                connection.Dispose();
            }
        }
        _client?.Dispose();
        _stop.Dispose();
    }

    private enum Outcome
    {
        Response,
        Timeout,
        Refused,
        ConnectionError,
        Stopped,
    }
}
