using System.Diagnostics;

namespace PerfLab.Load;

/// <summary>
/// Once per UTC second: snapshots every scenario, turns the difference into a timeline point, reports progress,
/// and stops the run when a target stops answering (a whole second of connection errors and no response).
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

    public Sampler(ScenarioRun[] runs, long started, TimeSpan total, IProgress<LoadProgress>? progress)
    {
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

    /// <summary>Samples until <paramref name="done"/> completes; returns why the target was declared dead, if it was.</summary>
    public async Task<string?> RunAsync(Task done, CancellationTokenSource runStop)
    {
        string? died = null;
        while (!done.IsCompleted)
        {
            var now = DateTimeOffset.UtcNow;
            var boundary = DateTimeOffset.FromUnixTimeSeconds(now.ToUnixTimeSeconds() + 1);
            if (await Task.WhenAny(done, Task.Delay(DelayPast(boundary, now))).ConfigureAwait(false) == done)
            {
                break;
            }
            while (DateTimeOffset.UtcNow is var late && late < boundary)
            {
                await Task.Delay(DelayPast(boundary, late)).ConfigureAwait(false); // the timer ended more than TimerSlack early
            }
            var deadNow = Sample(report: true);
            if (died is null && deadNow is not null)
            {
                died = deadNow;
                runStop.Cancel();
            }
        }
        return died;
    }

    /// <summary>
    /// How long the runtime's timers may end before their time: they run on the coarse tick count (4 ms steps at HZ=250,
    /// 10 ms at HZ=100), so a wait of exactly the time left woke the sampler before the boundary, and it then polled in
    /// 1 ms waits; each wait is a wake-up of the timer thread and of a pool thread, 10-20 a second in all, which on a
    /// pinned generator at the ~2,500 requests a second of a JSON endpoint weighed on its CPU per request.
    /// </summary>
    internal static readonly TimeSpan TimerSlack = TimeSpan.FromMilliseconds(10);

    /// <summary>
    /// The wait that ends at or after <paramref name="boundary"/> even when the timer ends <see cref="TimerSlack"/>
    /// early: one wake-up a second. The sample lands up to about 15 ms after the boundary; each interval's length is
    /// the measured time between its samples, and its label the second it started in, so neither moves.
    /// </summary>
    internal static TimeSpan DelayPast(DateTimeOffset boundary, DateTimeOffset now) =>
        TimeSpan.FromMilliseconds(Math.Ceiling((boundary - now).TotalMilliseconds)) + TimerSlack;

    /// <summary>Closes the current interval. Returns a reason when a scenario saw only connection errors in it.</summary>
    public string? Sample(bool report = false)
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
        if (report)
        {
            _progress?.Report(new LoadProgress(Stopwatch.GetElapsedTime(_started), _total, _runs.Any(r => !r.Measuring), progress)
            {
                IntervalStartUtc = intervalStart,
                IntervalEndUtc = now,
            });
        }
        return died;
    }
}
