using System.Diagnostics;
using System.Runtime.CompilerServices;
using PerfLab.Load.Sockets;

namespace PerfLab.Load;

/// <summary>
/// Once per UTC second: snapshots every scenario, turns the difference into a timeline point, reports progress,
/// and stops the run when a target stops answering (a whole second of connection errors and no response). The code
/// that runs once a second (this sampling, the snapshots and their histogram arithmetic, the watchdog's look) is marked
/// AggressiveOptimization: called once a second it would reach its tier-1 call count, and its loops their OSR, tens of
/// seconds in, inside the measured window, where those compiles were 2.3 ms of the generator's CPU a second.
/// </summary>
internal sealed class Sampler
{
    private readonly ScenarioRun[] _runs;
    private readonly long _started;
    private readonly TimeSpan _total;
    private readonly IProgress<LoadProgress>? _progress;
    private readonly RecordingSnapshot[] _previous;
    private readonly bool[] _previousMeasuring;
    private readonly List<LoadSecond>[] _timelines;
    private DateTimeOffset _previousAt;
    private DateTimeOffset _boundary; // the UTC second the next sample closes the interval at
    private Task _reported = Task.CompletedTask;
    private string? _died;
    private readonly CancellationTokenSource _runStop;

    /// <param name="runStop">Cancelled when a target is declared dead.</param>
    public Sampler(ScenarioRun[] runs, long started, TimeSpan total, IProgress<LoadProgress>? progress, CancellationTokenSource runStop)
    {
        _runStop = runStop;
        _runs = runs;
        _started = started;
        _total = total;
        _progress = progress;
        _previous = [.. runs.Select(r => r.Recorders.Snapshot())];
        _previousMeasuring = [.. runs.Select(r => r.Measuring)];
        _timelines = [.. runs.Select(_ => new List<LoadSecond>())];
        _previousAt = DateTimeOffset.UtcNow;
    }

    public IReadOnlyList<LoadSecond>[] Timelines => _timelines;

    /// <summary>
    /// The requests per second of all scenarios together over the last <paramref name="count"/> whole seconds sampled
    /// (the first, partial second of the run left out); fewer when the run is younger. Safe while sampling goes on.
    /// </summary>
    public double[] LastSeconds(int count)
    {
        lock (_timelines)
        {
            return LastSeconds(_timelines, count);
        }
    }

    /// <summary>
    /// <see cref="LastSeconds(int)"/> over given timelines. One scenario's timeline can be a second ahead of another's
    /// (each is appended in turn while sampling), so the same indices, up to the shortest timeline's end, are read from all.
    /// </summary>
    internal static double[] LastSeconds(IReadOnlyList<IReadOnlyList<LoadSecond>> timelines, int count)
    {
        var shortest = timelines.Min(t => t.Count);
        var take = Math.Max(0, Math.Min(count, shortest - 1));
        var first = shortest - take;
        return [.. Enumerable.Range(first, take).Select(i => timelines.Sum(t => t[i].RequestsPerSecond))];
    }

    /// <summary>
    /// Samples until <paramref name="done"/> completes; returns why the target was declared dead, if it was. Each sample
    /// is a callback of the generator's event loop (<see cref="Pacer.Every"/>), taken on the loop's thread as wrk's
    /// timers run on its own; what the progress does with a sample (a console line, an interval log sent over SSH) runs
    /// on the thread pool, one sample after the other, and so does stopping a dead run.
    /// </summary>
    public async Task<string?> RunAsync(Task done)
    {
        // Not disposed: done's continuation may cancel it after sampling has ended.
        var finished = new CancellationTokenSource();
        _ = done.ContinueWith(static (_, s) => ((CancellationTokenSource)s!).Cancel(), finished, CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        await Pacer.Every(EpollLoop.First, NextSampleDue(), SampleAtBoundary, finished.Token).ConfigureAwait(false);
        await _reported.ConfigureAwait(false);
        return _died;
    }

    /// <summary>The next UTC second's boundary, kept as the one the next sample closes at; returns when that is due.</summary>
    private long NextSampleDue()
    {
        var now = DateTimeOffset.UtcNow;
        _boundary = DateTimeOffset.FromUnixTimeSeconds(now.ToUnixTimeSeconds() + 1);
        return Due(DelayPast(_boundary, now));
    }

    /// <summary>
    /// The loop's once-a-second callback: the interval closed at the UTC second's boundary, its progress handed on, a
    /// dead target's run stopped; returns when the next boundary is due. When the precise clock the loop waits on and the
    /// UTC clock disagree by more than the slack, the boundary is not reached yet: it waits the rest.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window
    private long SampleAtBoundary()
    {
        var now = DateTimeOffset.UtcNow;
        if (now < _boundary)
        {
            return Due(DelayPast(_boundary, now));
        }
        var (deadNow, progress) = Take();
        if (_progress is { } sink)
        {
            _reported = _reported.ContinueWith(static (_, s) => ((Reported)s!).Report(), new Reported(sink, progress),
                CancellationToken.None, TaskContinuationOptions.None, TaskScheduler.Default);
        }
        if (_died is null && deadNow is not null)
        {
            _died = deadNow;
            _ = Task.Run(_runStop.Cancel);
        }
        return NextSampleDue();
    }

    /// <summary>A sample on its way to the progress sink, off the loop's thread.</summary>
    private sealed record Reported(IProgress<LoadProgress> Sink, LoadProgress Progress)
    {
        [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second (Sampler)
        public void Report() => Sink.Report(Progress);
    }

    private static long Due(TimeSpan delay) => Stopwatch.GetTimestamp() + (long)Math.Ceiling(delay.TotalSeconds * Stopwatch.Frequency);

    /// <summary>
    /// How far apart the UTC clock the intervals are labelled by and the precise clock the waits end on may read. The
    /// pacer's waits never end before their time (the loop's timers are precise; its Task.Delay fallback checks the
    /// precise clock and waits again), so the wait is the time to the boundary, rounded up to a millisecond, plus this.
    /// </summary>
    internal static readonly TimeSpan ClockSlack = TimeSpan.FromMilliseconds(1);

    /// <summary>
    /// The wait that ends at or after <paramref name="boundary"/>: one wake-up a second, no polling. The sample lands
    /// about a millisecond after the boundary; each interval's length is the measured time between its samples, and
    /// its label the second it started in.
    /// </summary>
    internal static TimeSpan DelayPast(DateTimeOffset boundary, DateTimeOffset now) =>
        TimeSpan.FromMilliseconds(Math.Ceiling((boundary - now).TotalMilliseconds)) + ClockSlack;

    /// <summary>
    /// Closes the current interval, unreported (the run's last). Returns a reason when a scenario saw only connection
    /// errors in it.
    /// </summary>
    public string? Sample() => Take().Died;

    /// <summary>Closes the current interval: the reason when a scenario saw only connection errors in it, and its progress.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second: optimized at first use, no tier-up in the window (Sampler)
    private (string? Died, LoadProgress Progress) Take()
    {
        var now = DateTimeOffset.UtcNow;
        var seconds = (now - _previousAt).TotalSeconds;
        var label = _previousAt.ToUnixTimeSeconds();
        string? died = null;
        var progress = new ScenarioProgress[_runs.Length];
        for (var i = 0; i < _runs.Length; i++)
        {
            var run = _runs[i];
            var current = run.Recorders.Snapshot();
            var d = current.Minus(_previous[i]);
            var rps = seconds > 0 ? d.Requests / seconds : 0;
            var p99 = d.Latency.Percentile(99) / 1000.0;
            if (seconds > 0.001 || d.Requests > 0)
            {
                lock (_timelines)
                {
                    _timelines[i].Add(new LoadSecond(label, !_previousMeasuring[i], d.Requests, rps, d.Latency.Percentile(50) / 1000.0, p99,
                        d.Errors, run.ActiveUsers));
                }
            }
            if (d.TransportErrors > 0 && d.Responses == 0 && !run.Stop.IsCancellationRequested)
            {
                died ??= current.Responses == 0
                    ? $"{run.Plan.Name}: the target never answered: {run.FirstError}"
                    : $"{run.Plan.Name}: the target stopped answering ({(d.Refused > 0 ? "connection refused" : "connection errors")}) at "
                        + $"unix second {label}";
            }
            var measured = run.Measuring ? current.Requests - run.Baseline.Requests : 0;
            var errors = run.Measuring ? current.Errors - run.Baseline.Errors : 0;
            progress[i] = new ScenarioProgress(run.Plan.Name, measured, rps, p99, errors, run.ActiveUsers) { IntervalLatency = d.Latency };
            _previous[i] = current;
            _previousMeasuring[i] = run.Measuring;
        }
        var intervalStart = _previousAt;
        _previousAt = now;
        return (died, new LoadProgress(Stopwatch.GetElapsedTime(_started), _total, AnyWarmingUp(), progress)
        {
            IntervalStartUtc = intervalStart,
            IntervalEndUtc = now,
        });
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // once a second (Sampler); a loop, no lambda to tier up
    private bool AnyWarmingUp()
    {
        foreach (var run in _runs)
        {
            if (!run.Measuring)
            {
                return true;
            }
        }
        return false;
    }
}
