using System.Runtime.CompilerServices;

namespace PerfLab.Load;

/// <summary>What one thread recorded for one scenario. Written only by its own thread: no locks, no atomics.</summary>
internal sealed class ThreadRecorder(bool uncorrected)
{
    public const int StatusSlots = 600;

    public readonly LatencyHistogram Latency = new();
    public readonly LatencyHistogram? Uncorrected = uncorrected ? new LatencyHistogram() : null;
    public readonly long[] Status = new long[StatusSlots];
    public long Requests;
    public long Bytes;
    public long Timeouts;
    public long Refused;
    public long ConnectionErrors;
    /// <summary>Responses whose status passed but whose JSON check did not.</summary>
    public long CheckFailures;
    public long Sends;
    public long LateSends;
    public long MaxLagMicros;

    /// <summary>A send: counted, and for the open model how late it left against its intended time.</summary>
    public void NoteSend(long start, long intended)
    {
        Sends++;
        if (intended == 0)
        {
            return;
        }
        var lag = ScenarioRun.ToMicros(start - intended);
        if (lag > OpenSchedule.LateThresholdMs * 1000)
        {
            LateSends++;
        }
        if (lag > MaxLagMicros)
        {
            MaxLagMicros = lag;
        }
    }

    /// <summary>
    /// One completed request: a response (latency from the intended send time, and from the actual one), or an error
    /// by kind.
    /// </summary>
    public void Record(RequestOutcome outcome, int status, long bytes, long latencyTicks, long uncorrectedTicks)
    {
        Requests++;
        switch (outcome)
        {
            case RequestOutcome.Response or RequestOutcome.CheckFailed:
                CheckFailures += outcome == RequestOutcome.CheckFailed ? 1 : 0;
                Status[Math.Min(status, StatusSlots - 1)]++;
                Bytes += bytes;
                Latency.Record(ScenarioRun.ToMicros(latencyTicks));
                Uncorrected?.Record(ScenarioRun.ToMicros(uncorrectedTicks));
                break;
            case RequestOutcome.Timeout:
                Timeouts++;
                break;
            case RequestOutcome.Refused:
                Refused++;
                break;
            default:
                ConnectionErrors++;
                break;
        }
    }
}

/// <summary>
/// The recorders of one scenario, one per thread that ever completed one of its requests. Async continuations hop
/// between pool threads, but a thread runs one continuation at a time, so a per-thread recorder needs no
/// synchronization, and their number is bounded by the pool size rather than the user count (1,000 users would
/// otherwise mean 1,000 histograms). A sampler merges them into cumulative snapshots; differences of snapshots give
/// per-second and post-warm-up figures.
/// </summary>
internal sealed class RecorderSet(bool uncorrected, bool[]? errorStatus = null)
{
    [ThreadStatic] private static RecorderSet? t_lastSet;
    [ThreadStatic] private static ThreadRecorder? t_lastRecorder;
    [ThreadStatic] private static ConditionalWeakTable<RecorderSet, ThreadRecorder>? t_recorders;

    private readonly Lock _gate = new();
    private readonly List<ThreadRecorder> _all = [];
    private readonly bool _uncorrected = uncorrected;

    /// <summary>Per status code, whether it counts as an error (see <see cref="RecordingSnapshot.ErrorStatuses"/>).</summary>
    public bool[] ErrorStatus { get; } = errorStatus ?? RecordingSnapshot.DefaultErrorStatus;

    public ThreadRecorder Current => ReferenceEquals(t_lastSet, this) ? t_lastRecorder! : Slow();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private ThreadRecorder Slow()
    {
        var map = t_recorders ??= new ConditionalWeakTable<RecorderSet, ThreadRecorder>();
        if (!map.TryGetValue(this, out var recorder))
        {
            recorder = new ThreadRecorder(_uncorrected);
            lock (_gate)
            {
                _all.Add(recorder);
            }
            map.Add(this, recorder);
        }
        t_lastSet = this;
        t_lastRecorder = recorder;
        return recorder;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    public RecordingSnapshot Snapshot()
    {
        ThreadRecorder[] recorders;
        lock (_gate)
        {
            recorders = [.. _all];
        }
        var snapshot = new RecordingSnapshot(_uncorrected, ErrorStatus);
        foreach (var r in recorders)
        {
            snapshot.Add(r);
        }
        return snapshot;
    }
}

/// <summary>A merged, cumulative view of a scenario's recorders at one moment (or a difference of two).</summary>
internal sealed class RecordingSnapshot(bool uncorrected, bool[]? errorStatus = null)
{
    /// <summary>Without a response check: every status from 400 up is an error.</summary>
    public static readonly bool[] DefaultErrorStatus = ErrorStatuses(null);

    private readonly bool[] _errorStatus = errorStatus ?? DefaultErrorStatus;

    /// <summary>
    /// Per status code, whether a response with it is an error: not among
    /// the expected ones, or without an expectation, 400 and above.
    /// </summary>
    public static bool[] ErrorStatuses(StatusSet? expected)
    {
        var error = new bool[ThreadRecorder.StatusSlots];
        for (var s = 0; s < error.Length; s++)
        {
            error[s] = expected is null ? s >= 400 : !expected.Contains(s);
        }
        return error;
    }

    public LatencyHistogram Latency { get; } = new();
    public LatencyHistogram? Uncorrected { get; } = uncorrected ? new LatencyHistogram() : null;
    public long[] Status { get; } = new long[ThreadRecorder.StatusSlots];
    public long Requests { get; private set; }
    public long Bytes { get; private set; }
    public long Timeouts { get; private set; }
    public long Refused { get; private set; }
    public long ConnectionErrors { get; private set; }
    public long CheckFailures { get; private set; }
    public long Sends { get; private set; }
    public long LateSends { get; private set; }
    public long MaxLagMicros { get; private set; }

    public long Errors
    {
        get
        {
            long errors = Timeouts + Refused + ConnectionErrors + CheckFailures;
            for (var s = 0; s < Status.Length; s++)
            {
                if (_errorStatus[s])
                {
                    errors += Status[s];
                }
            }
            return errors;
        }
    }

    public long TransportErrors => Refused + ConnectionErrors;

    public long Responses => Requests - Timeouts - Refused - ConnectionErrors;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    public void Add(ThreadRecorder r)
    {
        Latency.Add(r.Latency);
        if (r.Uncorrected is not null)
        {
            Uncorrected!.Add(r.Uncorrected);
        }
        for (var s = 0; s < Status.Length; s++)
        {
            Status[s] += r.Status[s];
        }
        Requests += r.Requests;
        Bytes += r.Bytes;
        Timeouts += r.Timeouts;
        Refused += r.Refused;
        ConnectionErrors += r.ConnectionErrors;
        CheckFailures += r.CheckFailures;
        Sends += r.Sends;
        LateSends += r.LateSends;
        MaxLagMicros = Math.Max(MaxLagMicros, r.MaxLagMicros);
    }

    /// <summary>This minus <paramref name="earlier"/>: what happened between the two snapshots. The max lag stays cumulative.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    public RecordingSnapshot Minus(RecordingSnapshot earlier)
    {
        var d = new RecordingSnapshot(Uncorrected is not null, _errorStatus);
        d.Latency.Add(Latency);
        d.Latency.Subtract(earlier.Latency);
        if (Uncorrected is not null)
        {
            d.Uncorrected!.Add(Uncorrected);
            d.Uncorrected.Subtract(earlier.Uncorrected!);
        }
        for (var s = 0; s < Status.Length; s++)
        {
            d.Status[s] = Status[s] - earlier.Status[s];
        }
        d.Requests = Requests - earlier.Requests;
        d.Bytes = Bytes - earlier.Bytes;
        d.Timeouts = Timeouts - earlier.Timeouts;
        d.Refused = Refused - earlier.Refused;
        d.ConnectionErrors = ConnectionErrors - earlier.ConnectionErrors;
        d.CheckFailures = CheckFailures - earlier.CheckFailures;
        d.Sends = Sends - earlier.Sends;
        d.LateSends = LateSends - earlier.LateSends;
        d.MaxLagMicros = MaxLagMicros;
        return d;
    }

    public ErrorCounts ToErrorCounts()
    {
        var kinds = new SortedDictionary<string, long>(StringComparer.Ordinal);
        for (var s = 0; s < Status.Length; s++)
        {
            if (Status[s] > 0 && _errorStatus[s])
            {
                kinds[s >= 400 ? ErrorCounts.HttpKind(s) : ErrorCounts.UnexpectedKind(s)] = Status[s];
            }
        }
        if (CheckFailures > 0)
        {
            kinds[ErrorCounts.CheckJsonKind] = CheckFailures;
        }
        if (Timeouts > 0)
        {
            kinds["timeout"] = Timeouts;
        }
        if (Refused > 0)
        {
            kinds["connection-refused"] = Refused;
        }
        if (ConnectionErrors > 0)
        {
            kinds["connection-error"] = ConnectionErrors;
        }
        return new ErrorCounts(Errors, kinds);
    }
}
