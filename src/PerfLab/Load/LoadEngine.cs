using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Load.Models;

namespace PerfLab.Load;

/// <summary>
/// Runs a <see cref="LoadPlan"/>: all scenarios at once, each on its own connection pool, and returns what was
/// measured. Throws <see cref="PerfLabException"/> (Usage) for an invalid plan or a refused target, and
/// (Unreachable) when a target does not accept a TCP connection within <see cref="LoadPlan.ConnectTimeout"/>.
/// Cancelling the run's token is not an error: the run stops within a second and the result is returned,
/// marked incomplete. A target that stops answering mid-run (only connection errors for a whole second) also ends
/// the run with an incomplete result.
/// </summary>
public static class LoadEngine
{
    /// <summary>
    /// Thread-pool threads kept ready from the first run on (the minimum is raised, never lowered again: runs may
    /// overlap, and a pool minimum costs nothing while idle). Responses and the open model's paced sends run on the socket
    /// event thread, but users start on the pool, the sampler is a timer continuation there, and without the event loop
    /// (the runtime's sockets, HttpClient) the open model's send times are too: with the default minimum (one per core)
    /// a process whose other pool work is busy at start (an in-process server's first requests, say) held the schedule
    /// back by 0.6-1.5 s until the pool injected threads.
    /// </summary>
    public const int MinPoolThreads = 16;

    public static async Task<LoadResult> RunAsync(LoadPlan plan, IProgress<LoadProgress>? progress = null, CancellationToken ct = default)
    {
        Validate(plan);
        await GeneratorPrimer.EnsurePrimedAsync(ct).ConfigureAwait(false);
        ThreadPool.GetMinThreads(out var workers, out var io);
        if (workers < MinPoolThreads)
        {
            ThreadPool.SetMinThreads(MinPoolThreads, io);
        }
        var feeds = new ResolvedFeed[plan.Scenarios.Count];
        for (var i = 0; i < feeds.Length; i++)
        {
            feeds[i] = await FeedLoader.ResolveAsync(plan.Scenarios[i].Feed, plan.Scenarios[i].Request, plan.AllowRemote, plan.Timeout, ct)
                .ConfigureAwait(false);
        }
        foreach (var target in feeds.Select(f => f.Uris[0]).DistinctBy(u => u.GetLeftPart(UriPartial.Authority)))
        {
            await TargetGuard.EnsureReachableAsync(target, plan.ConnectTimeout, ct).ConfigureAwait(false);
        }

        using var runStop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var runs = new ScenarioRun[plan.Scenarios.Count];
        var runners = new ILoadModelRunner[runs.Length];
        for (var i = 0; i < runs.Length; i++)
        {
            runs[i] = new ScenarioRun(plan.Scenarios[i], feeds[i], plan, runStop.Token);
            runners[i] = plan.Scenarios[i].Model.CreateRunner();
        }
        try
        {
            return await RunCoreAsync(plan, runs, runners, runStop, progress, ct).ConfigureAwait(false);
        }
        finally
        {
            foreach (var run in runs)
            {
                run.Dispose();
            }
        }
    }

    private static async Task<LoadResult> RunCoreAsync(
        LoadPlan plan, ScenarioRun[] runs, ILoadModelRunner[] runners, CancellationTokenSource runStop,
        IProgress<LoadProgress>? progress, CancellationToken ct)
    {
        var started = Stopwatch.GetTimestamp();
        var window = new Window(DateTimeOffset.UtcNow, started, plan.Warmup > TimeSpan.Zero && runners.Any(r => r.UsesTimedWarmup));
        var finished = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var holds = new List<Task>();
        var total = ScheduleStops(plan, runs, runners, window.TimedWarmup,
            (run, limit) => holds.Add(WindowCycle.Arm(run, plan, limit, finished.Task)));
        var onLoops = runs.All(r => r.OnLoops);
        var meter = GeneratorMeter.Start(onLoops);
        plan.Probe?.WindowStarted();
        var sampler = new Sampler(runs, started, total, progress, runStop);
        var allDone = Task.WhenAll(runs.Select((run, i) => RunScenarioAsync(run, runners[i], plan)));
        var sampling = sampler.RunAsync(allDone);

        if (window.TimedWarmup)
        {
            var (warmedUp, settled) = await WarmUpAsync(plan, sampler, allDone, ct).ConfigureAwait(false);
            warmedUp = warmedUp && await FirstAnswersAsync(plan, runs.Where((_, i) => runners[i].UsesTimedWarmup).ToArray(), allDone, ct)
                .ConfigureAwait(false);
            if (warmedUp && !ct.IsCancellationRequested)
            {
                for (var i = 0; i < runs.Length; i++)
                {
                    if (runners[i].UsesTimedWarmup)
                    {
                        runs[i].BeginMeasurement();
                        holds.Add(WindowCycle.Arm(runs[i], plan, plan.Duration, finished.Task));
                    }
                }
                window = window.Measuring(DateTimeOffset.UtcNow, Stopwatch.GetTimestamp(), plan.WarmupUntilSteady ? settled : null);
                meter = GeneratorMeter.Start(onLoops);
                plan.Probe?.WindowStarted();
            }
        }

        string? diedReason;
        try
        {
            diedReason = await sampling.ConfigureAwait(false);
            await allDone.ConfigureAwait(false);
        }
        finally
        {
            // A scenario that threw still ends every held window: none polls on after the run.
            finished.TrySetResult();
        }
        await Task.WhenAll(holds).ConfigureAwait(false);
        plan.Probe?.WindowEnded();
        sampler.Sample();
        return Finish(plan, runs, runners, sampler, window, meter, diedReason, ct);
    }

    /// <summary>
    /// Each scenario's stop: a timed warm-up's scenarios run warm-up plus duration (re-armed once measuring starts);
    /// the others' windows open now and end as <paramref name="window"/> arms them.
    /// </summary>
    private static TimeSpan ScheduleStops(LoadPlan plan, ScenarioRun[] runs, ILoadModelRunner[] runners, bool timedWarmup,
        Action<ScenarioRun, TimeSpan> window)
    {
        var total = TimeSpan.Zero;
        for (var i = 0; i < runs.Length; i++)
        {
            var limit = runners[i].UsesTimedWarmup ? plan.Warmup + plan.Duration : plan.Duration;
            total = limit > total ? limit : total;
            if (runners[i].UsesTimedWarmup && timedWarmup)
            {
                // Re-armed with the duration when measuring starts; until then room for a warm-up held by its first answer.
                runs[i].StopAfter(limit + plan.Timeout);
                continue;
            }
            if (runners[i].UsesTimedWarmup)
            {
                runs[i].BeginMeasurement();
            }
            window(runs[i], limit);
        }
        return total;
    }

    /// <summary>
    /// The warm-up: a fixed time, or with <see cref="LoadPlan.WarmupUntilSteady"/> until <see cref="SteadyState"/> holds
    /// and the target's own condition too, checked once a second, at most <see cref="LoadPlan.Warmup"/>. Returns whether
    /// it ended with the load still running, and whether it ended steady (false: the cap was reached).
    /// </summary>
    private static async Task<(bool WarmedUp, bool Settled)> WarmUpAsync(LoadPlan plan, Sampler sampler, Task allDone, CancellationToken ct)
    {
        if (!plan.WarmupUntilSteady)
        {
            return (await Task.WhenAny(allDone, Task.Delay(plan.Warmup, ct)).ConfigureAwait(false) != allDone, false);
        }
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < plan.Warmup)
        {
            var left = plan.Warmup - clock.Elapsed;
            var tick = left < TimeSpan.FromSeconds(1) ? left : TimeSpan.FromSeconds(1);
            if (await Task.WhenAny(allDone, Task.Delay(tick, ct)).ConfigureAwait(false) == allDone || ct.IsCancellationRequested)
            {
                return (false, false);
            }
            var steady = (plan.TargetSettled is not null && !plan.WarmupWaitsForSteadyThroughput)
                || SteadyState.IsSteady(sampler.LastSeconds(SteadyState.Seconds));
            if (steady && (plan.TargetSettled?.Invoke() ?? true))
            {
                return (true, true);
            }
        }
        return (!allDone.IsCompleted, false);
    }

    /// <summary>
    /// A warm-up never ends before each of its scenarios has had a first response: a cold app (the JIT, EF Core building
    /// its model and first query, a busy machine) can take longer than a short warm-up to answer at all, and a window
    /// opened then measures the app's start, not its load (seen on a loaded CI machine: 4 users, no answer after 6 s,
    /// a measured window of 0 requests). Waits at most the request timeout more, when those first requests time out.
    /// Returns whether the load is still running.
    /// </summary>
    private static async Task<bool> FirstAnswersAsync(LoadPlan plan, ScenarioRun[] warmed, Task allDone, CancellationToken ct)
    {
        var waited = Stopwatch.StartNew();
        while (waited.Elapsed < plan.Timeout && warmed.Any(r => r.Recorders.Snapshot().Responses == 0))
        {
            if (await Task.WhenAny(allDone, Task.Delay(TimeSpan.FromMilliseconds(100), ct)).ConfigureAwait(false) == allDone
                || ct.IsCancellationRequested)
            {
                return false;
            }
        }
        return !allDone.IsCompleted;
    }

    private static LoadResult Finish(LoadPlan plan, ScenarioRun[] runs, ILoadModelRunner[] runners, Sampler sampler, Window window,
        GeneratorMeter meter, string? diedReason, CancellationToken ct)
    {
        var ended = Stopwatch.GetTimestamp();
        var reasons = new List<string>();
        if (ct.IsCancellationRequested)
        {
            reasons.Add(string.Create(CultureInfo.InvariantCulture,
                $"interrupted after {Stopwatch.GetElapsedTime(window.Started, ended).TotalSeconds:0.0} s"));
        }
        if (diedReason is not null)
        {
            reasons.Add(diedReason);
        }
        var results = new ScenarioResult[runs.Length];
        for (var i = 0; i < runs.Length; i++)
        {
            results[i] = Summarize(runs[i], runners[i], sampler.Timelines[i], reasons,
                stoppedEarly: ct.IsCancellationRequested || diedReason is not null);
        }
        var generator = meter.Stop(window.MeasureStart, ended, results.Sum(r => r.Requests),
            string.Join("; ", runs.Select((r, i) => runners[i].Transport ?? r.Transport).Distinct()));
        return new LoadResult(window.StartedUtc, window.MeasuredFromUtc, DateTimeOffset.UtcNow, reasons.Count > 0,
            reasons.Count > 0 ? string.Join("; ", reasons) : null, generator, results)
        {
            WarmupSeconds = (window.MeasuredFromUtc - window.StartedUtc).TotalSeconds,
            Settled = window.Settled,
        };
    }

    /// <summary>When the run started and when its measured window began.</summary>
    private sealed record Window(DateTimeOffset StartedUtc, long Started, bool TimedWarmup)
    {
        public DateTimeOffset MeasuredFromUtc { get; private init; } = StartedUtc;
        public long MeasureStart { get; private init; } = Started;
        public bool? Settled { get; private init; }

        public Window Measuring(DateTimeOffset fromUtc, long from, bool? settled) =>
            this with { MeasuredFromUtc = fromUtc, MeasureStart = from, Settled = settled };
    }

    private static async Task RunScenarioAsync(ScenarioRun run, ILoadModelRunner runner, LoadPlan plan)
    {
        // Task.Run so a scenario's synchronous start-up (creating users) never delays the others or the sampler.
        try
        {
            // ForceYielding: the last request may complete on a socket event thread (inline completions), and the
            // rest of the run (sampling, summaries) must not hold that thread.
            await Task.Run(() => runner.RunAsync(run, plan)).ConfigureAwait(ConfigureAwaitOptions.ForceYielding);
        }
        catch (OperationCanceledException)
        {
        }
        finally
        {
            run.MeasureEnd = Stopwatch.GetTimestamp();
        }
    }

    private static ScenarioResult Summarize(ScenarioRun run, ILoadModelRunner runner, IReadOnlyList<LoadSecond> timeline,
        List<string> reasons, bool stoppedEarly)
    {
        var plan = run.Plan;
        var measured = run.Measuring
            ? run.Recorders.Snapshot().Minus(run.Baseline)
            : new RecordingSnapshot(plan.Model is OpenModel, run.Recorders.ErrorStatus);
        var seconds = run.Measuring ? Stopwatch.GetElapsedTime(run.MeasureStart, run.MeasureEnd).TotalSeconds : 0;
        var rps = seconds > 0 ? measured.Requests / seconds : 0;

        var extra = runner.Summarize(run, measured, seconds, stoppedEarly, reasons);
        if (plan.MaxRequests is { } max && !run.BudgetExhausted && !stoppedEarly)
        {
            reasons.Add(string.Create(CultureInfo.InvariantCulture,
                $"{plan.Name}: time limit reached after {measured.Requests} of {max} requests"));
        }

        var latency = LatencyStats.From(measured.Latency);
        return new ScenarioResult(
            plan.Name,
            plan.Model,
            plan.Feed.UrlTemplate,
            plan.Model.Concurrency,
            measured.Requests,
            rps,
            latency,
            measured.Uncorrected is null ? null : LatencyStats.From(measured.Uncorrected),
            measured.Bytes,
            measured.ToErrorCounts(),
            extra.Open,
            extra.Burst,
            extra.Ramp,
            timeline)
        {
            InFlightAtEnd = run.InFlight.CountAtClose,
            InFlightOldestMs = run.InFlight.OldestMsAtClose,
            // A median beyond a fifth of the window means few requests could complete in it: the figure is the window's.
            BoundedByWindow = seconds > 0 && latency.Count > 0 && latency.P50Ms > seconds * 1000 / 5,
            Histogram = measured.Latency,
            UncorrectedHistogram = measured.Uncorrected,
            Request = ReferenceEquals(plan.Request, RequestSpec.Get) ? null : plan.Request.Describe(),
        };
    }

    private static void Validate(LoadPlan plan)
    {
        static void Require(bool ok, string message)
        {
            if (!ok)
            {
                throw new PerfLabException(message, ExitCode.Usage);
            }
        }

        Require(plan.Scenarios.Count > 0, "the plan has no scenario.");
        Require(plan.Duration > TimeSpan.Zero, "duration must be positive.");
        Require(plan.Warmup >= TimeSpan.Zero, "warm-up must not be negative.");
        Require(plan.Timeout > TimeSpan.Zero, "timeout must be positive.");
        Require(plan.ConnectTimeout > TimeSpan.Zero, "connect timeout must be positive.");
        Require(plan.Scenarios.Select(s => s.Name).Distinct(StringComparer.Ordinal).Count() == plan.Scenarios.Count,
            "scenario names must be unique.");
        foreach (var s in plan.Scenarios)
        {
            Require(s.MaxRequests is null or > 0, $"{s.Name}: the request count must be positive.");
            s.Request.Validate();
            foreach (var problem in s.Model.Problems())
            {
                Require(false, $"{s.Name}: {problem}");
            }
        }
    }
}
