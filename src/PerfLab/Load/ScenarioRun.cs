using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>
/// The live state of one scenario during a run: its client, its URLs, its recorders, its stop signal.
/// Plain http:// targets over HTTP/1.1 go through <see cref="Http11Connection"/>s, one per user, watched for timeouts
/// by one timer; https:// and HTTP/2 go through <see cref="HttpMessageInvoker"/>.
/// </summary>
internal sealed partial class ScenarioRun : IDisposable
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
    private readonly RequestTemplate _template;
    private readonly JsonExpectation[]? _jsonChecks; // an array: a foreach over an interface would allocate per response
    private readonly bool _http11;
    private readonly EndPoint? _endPoint;
    private readonly List<Http11Connection> _connections = [];
    private readonly Timer? _watchdog;
    private readonly HttpMessageInvoker? _client; // https:// and HTTP/2 only

    public ScenarioRun(ScenarioPlan plan, ResolvedFeed feed, LoadPlan loadPlan, CancellationToken runStop)
    {
        var uris = feed.Uris;
        Plan = plan;
        Uris = uris;
        _template = new RequestTemplate(plan.Request, uris, feed.Values, feed.Placeholder);
        _jsonChecks = plan.Request.Check?.Json is { Count: > 0 } json ? [.. json] : null;
        _timeout = loadPlan.Timeout;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(runStop);
        _version = loadPlan.Http2 ? HttpVersion.Version20 : HttpVersion.Version11;
        _versionPolicy = HttpVersionPolicy.RequestVersionExact;
        Recorders = new RecorderSet(uncorrected: plan.Model is OpenModel, plan.Request.Check?.Statuses is { } expected ? RecordingSnapshot.ErrorStatuses(expected) : RecordingSnapshot.DefaultErrorStatus);
        Baseline = Recorders.Snapshot();
        InFlight = new InFlightRequests(plan.Model.Concurrency);
        _budget = plan.MaxRequests ?? long.MaxValue;
        if (!loadPlan.Http2 && uris.All(u => u.Scheme == Uri.UriSchemeHttp && u.Authority == uris[0].Authority))
        {
            _http11 = true;
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
    public string Transport => !_http11
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
        var count = _template.Count;
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
        if (!_http11)
        {
            return null;
        }
        var connection = new Http11Connection(_endPoint!, _stop.Token) { KeepBody = _jsonChecks is not null };
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
                var response = await connection.SendAsync(_template.For(index, ref worker.Scratch)).ConfigureAwait(false);
                status = response.Status;
                bytes = response.BodyBytes;
                failure = _jsonChecks is not null && FailsJsonCheck(status, connection) ? Outcome.CheckFailed : Outcome.Response;
            }
            catch (Exception ex) when (ex is SocketException or IOException or ObjectDisposedException or OperationCanceledException)
            {
                failure = Failure(ex, connection.TimedOut);
            }
        }
        else
        {
            (failure, status, bytes) = await SendWithClientAsync(worker, index).ConfigureAwait(false);
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
            case Outcome.Response or Outcome.CheckFailed:
                recorder.CheckFailures += outcome == Outcome.CheckFailed ? 1 : 0;
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

    /// <summary>A response whose status passed but whose body lacks an expected JSON value (or was cut at 16 MiB).</summary>
    private bool FailsJsonCheck(int status, Http11Connection connection) =>
        !Recorders.ErrorStatus[Math.Min(status, ThreadRecorder.StatusSlots - 1)] && (connection.BodyTruncated || !Passes(connection.Body));

    private bool Passes(ReadOnlySpan<byte> body)
    {
        foreach (var check in _jsonChecks!)
        {
            if (!check.Matches(body))
            {
                return false;
            }
        }
        return true;
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
        CheckFailed,
        Timeout,
        Refused,
        ConnectionError,
        Stopped,
    }
}
