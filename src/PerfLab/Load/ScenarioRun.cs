using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>One user's reusable pieces: a body buffer, a timeout source, a random stream. Nothing per request.</summary>
internal sealed class LoadWorker(int index, ScenarioRun run)
{
    public readonly int Index = index;
    public readonly byte[] Buffer = new byte[16 * 1024];
    public readonly Random Random = new(HashCode.Combine(run.Plan.Feed.Seed, index));
    public CancellationTokenSource Timeout = CancellationTokenSource.CreateLinkedTokenSource(run.Stop);
}

/// <summary>The live state of one scenario during a run: its client, its URLs, its recorders, its stop signal.</summary>
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
        _budget = plan.MaxRequests ?? long.MaxValue;
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
        Client = new HttpMessageInvoker(handler, disposeHandler: true);
    }

    public ScenarioPlan Plan { get; }
    public Uri[] Uris { get; }
    public HttpMessageInvoker Client { get; }
    public RecorderSet Recorders { get; }
    public CancellationToken Stop => _stop.Token;
    public RecordingSnapshot Baseline { get; private set; }
    public long MeasureStart { get; private set; } = Stopwatch.GetTimestamp();
    public long MeasureEnd { get; set; }
    public bool Measuring => _measuring;
    public int ActiveUsers => Volatile.Read(ref _activeUsers);
    public bool BudgetExhausted => Volatile.Read(ref _budget) <= 0;
    public string? StopReason { get; set; }

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
    public bool TryTakeBudget() => !_measuring || Interlocked.Decrement(ref _budget) >= 0;

    public Uri NextUri(LoadWorker worker)
    {
        var uris = Uris;
        if (uris.Length == 1)
        {
            return uris[0];
        }
        if (Plan.Feed.Order == FeedOrder.Random)
        {
            return uris[worker.Random.Next(uris.Length)];
        }
        return uris[(int)((ulong)Interlocked.Increment(ref _cursor) % (ulong)uris.Length)];
    }

    /// <summary>
    /// Sends one request and records it on the current thread's recorder. <paramref name="intended"/> is the
    /// Stopwatch timestamp the request was due (open model) or 0. Returns false when the run is stopping.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<bool> SendAsync(LoadWorker worker, long intended)
    {
        var uri = NextUri(worker);
        var cts = worker.Timeout;
        cts.CancelAfter(_timeout);
        var start = Stopwatch.GetTimestamp();
        var recorder = Recorders.Current;
        recorder.Sends++;
        if (intended != 0)
        {
            var lag = ToMicros(start - intended);
            if (lag > OpenSchedule.LateThresholdMs * 1000)
            {
                recorder.LateSends++;
            }
            if (lag > recorder.MaxLagMicros)
            {
                recorder.MaxLagMicros = lag;
            }
        }

        int status;
        long bytes = 0;
        Outcome failure;
        try
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, uri) { Version = _version, VersionPolicy = _versionPolicy };
            using var response = await Client.SendAsync(request, cts.Token).ConfigureAwait(false);
            status = (int)response.StatusCode;
            using var body = await response.Content.ReadAsStreamAsync(cts.Token).ConfigureAwait(false);
            int read;
            while ((read = await body.ReadAsync(worker.Buffer, cts.Token).ConfigureAwait(false)) > 0)
            {
                bytes += read;
            }
            failure = Outcome.Response;
        }
        catch (OperationCanceledException)
        {
            status = 0;
            failure = Stop.IsCancellationRequested ? Outcome.Stopped : Outcome.Timeout;
        }
        catch (HttpRequestException ex) when (ex.InnerException is SocketException { SocketErrorCode: SocketError.ConnectionRefused })
        {
            status = 0;
            failure = Stop.IsCancellationRequested ? Outcome.Stopped : Outcome.Refused;
        }
        catch (Exception ex) when (ex is HttpRequestException or IOException or SocketException)
        {
            status = 0;
            failure = Stop.IsCancellationRequested ? Outcome.Stopped : Outcome.ConnectionError;
        }
        var end = Stopwatch.GetTimestamp();

        if (!cts.TryReset())
        {
            cts.Dispose();
            worker.Timeout = CancellationTokenSource.CreateLinkedTokenSource(Stop);
        }

        // An aborted request is neither a success nor an error: the run ended while it was in flight.
        if (failure == Outcome.Stopped)
        {
            return false;
        }
        recorder = Recorders.Current;
        recorder.Requests++;
        switch (failure)
        {
            case Outcome.Response:
                recorder.Status[Math.Min(status, ThreadRecorder.StatusSlots - 1)]++;
                recorder.Bytes += bytes;
                recorder.Latency.Record(ToMicros(end - (intended != 0 ? intended : start)));
                recorder.Uncorrected?.Record(ToMicros(end - start));
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
        return !Stop.IsCancellationRequested;
    }

    private static readonly double s_microsPerTick = 1_000_000.0 / Stopwatch.Frequency;

    public static long ToMicros(long ticks) => (long)(ticks * s_microsPerTick);

    public void Dispose()
    {
        Client.Dispose();
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
