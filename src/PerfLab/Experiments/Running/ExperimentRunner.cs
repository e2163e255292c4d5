using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Sut;
using LoadTimelinePoint = PerfLab.Load.LoadSecond;
using TimelinePoint = PerfLab.Results.TimelinePoint;

namespace PerfLab.Experiments.Running;

/// <summary>What `perflab run` was asked to do.</summary>
public sealed record RunRequest(
    IReadOnlyList<ExperimentDefinition> Experiments,
    string Profile,
    int? Repeat,
    bool Aa,
    string ConnectionString,
    string DatabaseDescription,
    CoreLayout Layout,
    string LogFolder);

/// <summary>Where the runner reports progress (the live display).</summary>
public interface IRunObserver
{
    void RunStarting(RunPosition position);
    void RunFinished(RunPosition position, RunRecord record);
    void Message(string text);
}

/// <param name="Index">1-based position of this run in the whole plan.</param>
public sealed record RunPosition(string Experiment, string Variant, int Repetition, int Repetitions, int Index, int Total, TimeSpan? Remaining);

/// <summary>
/// Runs experiments: for each repetition, every variant in turn (A B C A B C ...), each in a fresh SUT process whose
/// /info must confirm the variant, warmed up, loaded, and watched over EventPipe. Failures of one run are recorded
/// and the rest goes on; Ctrl+C stops everything started and returns what was measured.
/// </summary>
public sealed class ExperimentRunner(RunRequest request, IRunObserver observer)
{
    private static readonly TimeSpan RequestTimeout = TimeSpan.FromSeconds(30);

    public async Task<RunResults> RunAsync(NoiseFloors noise, CancellationToken ct)
    {
        var settings = new AnalysisSettings(request.Profile, request.Repeat, request.Aa, noise);
        var started = DateTimeOffset.UtcNow;
        var plan = request.Experiments
            .SelectMany(e =>
            {
                var profile = e.Profiles[request.Profile];
                var repeat = request.Repeat ?? profile.Repeat;
                var variants = e.VariantsToRun(request.Aa);
                return Interleave(variants, repeat).Select(x => (Experiment: e, x.Variant, x.Rep, Repeat: repeat));
            })
            .ToList();
        // The ETA: each experiment's own measured run time once it has one, else its planned time plus the
        // start/stop overhead seen so far.
        var observed = new Dictionary<string, List<double>>();
        var overheads = new List<double>();
        double Estimate(ExperimentDefinition e) => observed.TryGetValue(e.Name, out var seen) && seen.Count > 0
            ? seen.Average()
            : PlannedSeconds(e) + (overheads.Count > 0 ? overheads.Average() : 3.0);

        if (plan.Count > 0 && !ct.IsCancellationRequested)
        {
            await PrimeAsync(plan[0].Experiment, plan[0].Variant, ct);
        }

        var results = new List<ExperimentResult>();
        string? incomplete = null;
        var index = 0;
        foreach (var group in plan.GroupBy(p => p.Experiment))
        {
            var experiment = group.Key;
            var runs = new List<RunRecord>();
            foreach (var (_, variant, rep, repeat) in group)
            {
                if (ct.IsCancellationRequested)
                {
                    incomplete = "interrupted (Ctrl+C)";
                    break;
                }
                index++;
                var remaining = TimeSpan.FromSeconds(plan.Skip(index - 1).Sum(p => Estimate(p.Experiment)));
                var position = new RunPosition(experiment.Name, variant.Name, rep, repeat, index, plan.Count, remaining);
                observer.RunStarting(position);
                var clock = Stopwatch.StartNew();
                var record = await RunOneAsync(experiment, variant, rep, index, ct);
                var took = clock.Elapsed.TotalSeconds;
                overheads.Add(Math.Max(0, took - PlannedSeconds(experiment)));
                (observed.TryGetValue(experiment.Name, out var list) ? list : observed[experiment.Name] = []).Add(took);
                runs.Add(record);
                observer.RunFinished(position, record);
                if (ct.IsCancellationRequested)
                {
                    incomplete = "interrupted (Ctrl+C)";
                    break;
                }
                if (record.Status == RunStatus.Failed && record.FailureReason?.StartsWith(DatabaseDown, StringComparison.Ordinal) == true)
                {
                    incomplete = record.FailureReason;
                    break;
                }
            }
            if (runs.Count > 0)
            {
                results.Add(ExperimentAnalyzer.Analyze(experiment, runs, settings));
            }
            if (incomplete is not null)
            {
                break;
            }
        }

        var repetitions = request.Repeat ?? request.Experiments.Select(e => e.Profiles[request.Profile].Repeat).DefaultIfEmpty(0).Max();
        return new RunResults
        {
            StartedAt = started,
            FinishedAt = DateTimeOffset.UtcNow,
            Profile = request.Profile,
            Provenance = RunEnvironment.Describe(request.Profile, repetitions, request.Aa, request.Layout, request.DatabaseDescription),
            Experiments = results,
            Incomplete = incomplete is not null,
            IncompleteReason = incomplete,
            Notes = ReportContent.CeilingNotes(results),
        };
    }

    /// <summary>
    /// The run order: interleaved and rotated (A B C, B C A, C A B, ...), so that drift hits every variant and no
    /// variant always runs first in its cycle.
    /// </summary>
    public static IEnumerable<(T Variant, int Rep)> Interleave<T>(IReadOnlyList<T> variants, int repeat) =>
        Enumerable.Range(1, repeat).SelectMany(rep => Enumerable.Range(0, variants.Count)
            .Select(i => (variants[(i + rep - 1) % variants.Count], rep)));

    private const string DatabaseDown = "the database stopped";

    /// <summary>
    /// One short, unmeasured run before the first measured one: the first SUT process of an invocation otherwise meets
    /// cold file, database and CPU caches that no later run meets (measured here: the first run of an A/A pair 40 %
    /// slower), a bias against whichever variant runs first.
    /// </summary>
    private async Task PrimeAsync(ExperimentDefinition experiment, VariantDefinition variant, CancellationToken ct)
    {
        if (experiment.Scenarios.Any(s => s.Model == ScenarioKind.Upload))
        {
            return;
        }
        observer.Message("priming: one unmeasured run to warm caches...");
        var launch = new SutLaunch(variant.Settings, variant.Env, request.ConnectionString, variant.Framework,
            CpuSet: request.Layout.Sut, LogFile: Path.Combine(request.LogFolder, "priming.log"));
        try
        {
            await using var sut = await SutProcess.StartAsync(launch, progress: new InlineProgress<string>(observer.Message), ct: ct);
            var primingProfile = new ProfileDefinition(TimeSpan.Zero, TimeSpan.FromSeconds(3), 1, 1, null);
            await LoadEngine.RunAsync(BuildPlan(experiment, variant, primingProfile, sut.BaseAddress), progress: null, ct);
        }
        catch (PerfLabException ex)
        {
            // The measured runs will meet the same problem and report it with its log; priming only warms.
            observer.Message($"priming failed: {ex.Message.Split('\n')[0]}");
        }
        catch (OperationCanceledException)
        {
        }
    }

    /// <summary>Expected seconds of one run; burst and upload durations are caps, so they count batches instead.</summary>
    private double PlannedSeconds(ExperimentDefinition experiment)
    {
        var profile = experiment.Profiles[request.Profile];
        return experiment.Scenarios.Any(s => s.Model is ScenarioKind.Burst or ScenarioKind.Upload)
            ? profile.Warmup.TotalSeconds + (profile.Batches + 1) * 1.5
            : profile.Warmup.TotalSeconds + profile.Duration.TotalSeconds;
    }

    private async Task<RunRecord> RunOneAsync(ExperimentDefinition experiment, VariantDefinition variant, int rep, int order, CancellationToken ct)
    {
        var profile = experiment.Profiles[request.Profile];
        var startedAt = DateTimeOffset.UtcNow;
        RunRecord Failed(string reason, string? logTail = null, IReadOnlyDictionary<string, string>? info = null) =>
            FailedRun(variant.Name, rep, order, startedAt, reason, logTail, info);

        var launch = new SutLaunch(variant.Settings, variant.Env, request.ConnectionString, variant.Framework,
            CpuSet: request.Layout.Sut,
            LogFile: Path.Combine(request.LogFolder, $"{experiment.Name}-{variant.Name}-{rep}.log"));
        SutProcess sut;
        try
        {
            sut = await SutProcess.StartAsync(launch, progress: new InlineProgress<string>(observer.Message), ct: ct);
        }
        catch (PerfLabException ex)
        {
            return Failed($"the SUT did not start: {FirstLine(ex.Message)}", RestOf(ex.Message));
        }
        catch (OperationCanceledException)
        {
            return Failed("interrupted before the SUT was ready");
        }

        await using (sut)
        {
            SutInfo info;
            try
            {
                info = await sut.GetInfoAsync(ct);
            }
            catch (Exception ex) when (ex is HttpRequestException or TaskCanceledException or System.Text.Json.JsonException or PerfLabException)
            {
                return Failed($"the SUT did not answer /info: {ex.Message}", sut.TailOfLog());
            }
            var infoMap = Flatten(info);
            var mismatches = VariantCheck.Mismatches(launch, info);
            if (mismatches.Count > 0)
            {
                return Failed("the variant did not take effect: " + string.Join("; ", mismatches), sut.TailOfLog(), infoMap);
            }

            if (experiment.Scenarios is [{ Model: ScenarioKind.Upload } upload])
            {
                return await RunUploadAsync(sut, upload, profile, variant.Name, rep, order, startedAt, infoMap, ct);
            }

            var loadPlan = BuildPlan(experiment, variant, profile, sut.BaseAddress);
            LoadResult load;
            CounterRecording? recording;
            try
            {
                (load, recording) = await WithCountersAsync(sut.Pid, () => LoadEngine.RunAsync(loadPlan, progress: null, ct), ct);
            }
            catch (PerfLabException ex)
            {
                return Failed($"the load could not run: {ex.Message}", sut.TailOfLog(), infoMap);
            }

            if (sut.Process.HasExited)
            {
                return Failed($"the SUT crashed during the run (exit code {sut.Process.ExitCode})", sut.TailOfLog(), infoMap);
            }
            if (load.Incomplete && !ct.IsCancellationRequested)
            {
                return Failed($"the load stopped early: {load.IncompleteReason}", sut.TailOfLog(), infoMap);
            }
            var record = ToRecord(variant.Name, rep, order, startedAt, infoMap, load, recording);
            if (ct.IsCancellationRequested)
            {
                return record with { Status = RunStatus.Failed, FailureReason = "interrupted (Ctrl+C): partial figures" };
            }
            var requests = record.Scenarios.Sum(s => s.Requests);
            var unavailable = record.Scenarios.Sum(s => s.ErrorsByKind.GetValueOrDefault("http-503"));
            if (requests > 0 && unavailable * 2 > requests && !await DatabaseReachableAsync(ct))
            {
                return record with
                {
                    Status = RunStatus.Failed,
                    FailureReason = $"{DatabaseDown}: {unavailable} of {requests} requests answered 503 and the database does not accept connections; the remaining runs were skipped",
                };
            }
            return record;
        }
    }

    private static async Task<RunRecord> RunUploadAsync(SutProcess sut, ScenarioDefinition upload, ProfileDefinition profile,
        string variant, int rep, int order, DateTimeOffset startedAt, IReadOnlyDictionary<string, string> info, CancellationToken ct)
    {
        var ((outcome, failure), recording) = await WithCountersAsync(sut.Pid, async () =>
        {
            try
            {
                return (await UploadRun.RunAsync(sut, profile.UploadBytes ?? upload.UploadBytes, upload.Rtt, profile.Batches, profile.Duration, ct),
                    (string?)null);
            }
            catch (Exception ex) when (!ct.IsCancellationRequested && ex is PerfLabException or HttpRequestException or OperationCanceledException or IOException)
            {
                return (new UploadRun.Outcome([], upload.Rtt.TotalMilliseconds, double.NaN, startedAt, DateTimeOffset.UtcNow),
                    ex is OperationCanceledException ? $"an upload took longer than {DurationText.Format(profile.Duration)}" : ex.Message);
            }
        }, ct);
        if (failure is not null)
        {
            return FailedRun(variant, rep, order, startedAt, $"the upload failed: {failure}", sut.TailOfLog(), info);
        }
        var times = outcome.UploadMs;
        var histogram = new LatencyHistogram();
        foreach (var ms in times)
        {
            histogram.Record((long)(ms * 1000));
        }
        var seconds = (outcome.Ended - outcome.MeasuredFrom).TotalSeconds;
        var (averages, starvation, timeline) = CounterPart(recording, outcome.MeasuredFrom, outcome.Ended, new Dictionary<long, List<LoadTimelinePoint>>());
        return new RunRecord
        {
            Variant = variant,
            Repetition = rep,
            Order = order,
            Status = RunStatus.Ok,
            StartedAt = startedAt,
            SutInfo = info,
            Scenarios = [Stats(upload.Name, times.Count, seconds > 0 ? times.Count / seconds : 0, LatencyStats.From(histogram), 0, null)],
            Counters = averages,
            StarvationInjections = starvation,
            Timeline = timeline,
            GeneratorCpuPercent = 0,
            GeneratorSaturated = false,
            BatchTimesMs = times,
            ConfiguredRttMs = outcome.ConfiguredRttMs,
            MeasuredRttMs = outcome.MeasuredRttMs,
        };
    }

    private static RunRecord FailedRun(string variant, int rep, int order, DateTimeOffset startedAt, string reason,
        string? logTail, IReadOnlyDictionary<string, string>? info) => new()
    {
        Variant = variant,
        Repetition = rep,
        Order = order,
        Status = RunStatus.Failed,
        FailureReason = reason,
        LogTail = logTail,
        StartedAt = startedAt,
        SutInfo = info ?? new Dictionary<string, string>(),
        Scenarios = [],
        Counters = new Dictionary<string, double>(),
        StarvationInjections = 0,
        Timeline = [],
        GeneratorCpuPercent = 0,
        GeneratorSaturated = false,
    };

    /// <summary>
    /// Runs <paramref name="measure"/> with the counters collector attached to the SUT for exactly its duration; the
    /// session is stopped (and what it read kept) whether the measurement returns or throws.
    /// </summary>
    private static async Task<(T Result, CounterRecording? Recording)> WithCountersAsync<T>(int pid, Func<Task<T>> measure, CancellationToken ct)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var counters = CollectCountersAsync(pid, stop.Token);
        T result;
        try
        {
            result = await measure();
        }
        finally
        {
            await stop.CancelAsync();
            await counters;
        }
        return (result, await counters);
    }

    /// <summary>
    /// The runtime's counters until cancelled; a collector that cannot attach leaves the run without counters, not failed.
    /// ASP.NET Core's Hosting and Kestrel counters are left out: the load engine counts the requests itself, and
    /// enabling them makes the SUT pay for its per-request diagnostics on every request (docs/benchmarks.md).
    /// </summary>
    private static async Task<CounterRecording?> CollectCountersAsync(int pid, CancellationToken ct)
    {
        try
        {
            var options = new CounterOptions { Interval = TimeSpan.FromSeconds(1), Providers = [CounterCatalog.RuntimeEventSource] };
            return await CounterCollector.CollectAsync(pid, options, null, ct);
        }
        catch (PerfLabException)
        {
            return null;
        }
    }

    private async Task<bool> DatabaseReachableAsync(CancellationToken ct)
    {
        try
        {
            var csb = new Npgsql.NpgsqlConnectionStringBuilder(request.ConnectionString) { Timeout = 3, Pooling = false };
            await using var connection = new Npgsql.NpgsqlConnection(csb.ConnectionString);
            await connection.OpenAsync(ct);
            return true;
        }
        catch (Exception ex) when (ex is Npgsql.NpgsqlException or TimeoutException or System.Net.Sockets.SocketException)
        {
            return false;
        }
    }

    public static LoadPlan BuildPlan(ExperimentDefinition experiment, VariantDefinition variant, ProfileDefinition profile, Uri baseAddress)
    {
        var scenarios = experiment.Scenarios.Select(s =>
        {
            var path = s.Url;
            foreach (var (name, value) in variant.Vars)
            {
                path = path.Replace("${" + name + "}", value, StringComparison.Ordinal);
            }
            var url = new Uri(baseAddress, path).ToString();
            // Uri escapes braces; the feed's placeholder must stay as written.
            url = url.Replace("%7B", "{", StringComparison.Ordinal).Replace("%7D", "}", StringComparison.Ordinal);
            var feed = new RequestFeed(url);
            if (s.Feed is not null)
            {
                feed = feed with
                {
                    ValuesUrl = new Uri(baseAddress, s.Feed.FromUrl).ToString(),
                    Order = s.Feed.Random ? FeedOrder.Random : FeedOrder.Circular,
                };
            }
            LoadModel model = s.Model switch
            {
                ScenarioKind.Closed => new ClosedModel(s.Users),
                ScenarioKind.Open => new OpenModel(s.Rate, Math.Max(64, (int)Math.Ceiling(s.Rate))),
                ScenarioKind.Burst => new BurstModel(s.BurstSize, profile.Batches),
                ScenarioKind.Ramp => RampOf(s, profile),
                _ => throw new InvalidOperationException($"scenario {s.Name}: an upload runs through UploadRun, not the load engine"),
            };
            return new ScenarioPlan(s.Name, model, feed);
        }).ToList();
        return new LoadPlan(scenarios, profile.Duration, profile.Warmup, RequestTimeout);
    }

    private static RampModel RampOf(ScenarioDefinition s, ProfileDefinition profile)
    {
        var steps = 1 + (int)Math.Ceiling((s.Users - s.RampFrom) / (double)s.RampStep);
        return new RampModel(s.RampFrom, s.RampStep, profile.Duration / steps, s.Users);
    }

    private static RunRecord ToRecord(string variant, int rep, int order, DateTimeOffset startedAt,
        IReadOnlyDictionary<string, string> info, LoadResult load, CounterRecording? recording)
    {
        var loadSeconds = load.Scenarios.SelectMany(s => s.Timeline).Where(p => !p.Warmup).GroupBy(p => p.UnixSecond)
            .ToDictionary(g => g.Key, g => g.ToList());
        var (averages, starvation, timeline) = CounterPart(recording, load.MeasuredFromUtc, load.EndedUtc, loadSeconds);

        return new RunRecord
        {
            Variant = variant,
            Repetition = rep,
            Order = order,
            Status = RunStatus.Ok,
            StartedAt = startedAt,
            SutInfo = info,
            Scenarios = load.Scenarios
                .Select(s => Stats(s.Name, s.Requests, s.RequestsPerSecond, s.Latency, s.BytesReceived, s.Errors, s.UncorrectedLatency))
                .ToList(),
            Counters = averages,
            StarvationInjections = starvation,
            Timeline = timeline,
            GeneratorCpuPercent = load.Generator.CoresUsed * 100,
            GeneratorSaturated = load.Generator.Saturated,
            BatchTimesMs = load.Scenarios.SelectMany(s => s.Burst?.BatchMs ?? []).ToList(),
        };
    }

    private static ScenarioStats Stats(string name, long requests, double rps, LatencyStats latency, long bytes,
        ErrorCounts? errors, LatencyStats? uncorrected = null) => new()
    {
        Scenario = name,
        Requests = requests,
        Rps = rps,
        MeanMs = latency.MeanMs,
        StdDevMs = latency.StdDevMs,
        MinMs = latency.MinMs,
        P50Ms = latency.P50Ms,
        P75Ms = latency.P75Ms,
        P90Ms = latency.P90Ms,
        P95Ms = latency.P95Ms,
        P99Ms = latency.P99Ms,
        P999Ms = latency.P999Ms,
        MaxMs = latency.MaxMs,
        BytesReceived = bytes,
        Errors = errors?.Total ?? 0,
        ErrorsByKind = errors?.ByKind ?? new Dictionary<string, long>(),
        UncorrectedP99Ms = uncorrected?.P99Ms,
    };

    /// <summary>
    /// The counters of the measured window: each counter's average, the starvation injections, and the per-second
    /// timeline with the load's figures of the same UTC second beside them.
    /// </summary>
    private static (Dictionary<string, double> Averages, int Starvation, List<TimelinePoint> Timeline) CounterPart(
        CounterRecording? recording, DateTimeOffset measuredFrom, DateTimeOffset ended, Dictionary<long, List<LoadTimelinePoint>> loadSeconds)
    {
        var from = measuredFrom.ToUnixTimeSeconds();
        var to = ended.ToUnixTimeSeconds();
        var samples = recording?.Samples.Where(s => s.UnixSeconds >= from && s.UnixSeconds <= to).ToList() ?? [];
        var averages = samples.SelectMany(s => s.Values.Keys).Distinct().ToDictionary(
            name => name,
            name => samples.Select(s => s.Get(name)).OfType<double>().DefaultIfEmpty(double.NaN).Average());
        var starvation = recording?.Adjustments.Count(a => a.Reason == CounterNames.StarvationReason
            && a.UnixMs >= measuredFrom.ToUnixTimeMilliseconds() && a.UnixMs <= ended.ToUnixTimeMilliseconds()) ?? 0;
        var counterSeconds = samples.ToDictionary(s => s.UnixSeconds, s => s.Values);
        var seconds = loadSeconds.Keys.Concat(counterSeconds.Keys).Where(s => s >= from && s <= to).Distinct().Order();
        var timeline = seconds.Select(second =>
        {
            var points = loadSeconds.GetValueOrDefault(second) ?? new List<LoadTimelinePoint>();
            return new TimelinePoint
            {
                Second = (int)(second - from),
                Rps = points.Sum(p => p.RequestsPerSecond),
                P50Ms = points.Count > 0 ? points.Max(p => p.P50Ms) : 0,
                P99Ms = points.Count > 0 ? points.Max(p => p.P99Ms) : 0,
                Errors = points.Sum(p => p.Errors),
                Users = points.Sum(p => p.ActiveUsers),
                Counters = counterSeconds.GetValueOrDefault(second) ?? new Dictionary<string, double>(),
            };
        }).ToList();
        return (averages.Where(p => double.IsFinite(p.Value)).ToDictionary(p => p.Key, p => p.Value), starvation, timeline);
    }

    private static IReadOnlyDictionary<string, string> Flatten(SutInfo info)
    {
        static string S(object? v) => Convert.ToString(v, System.Globalization.CultureInfo.InvariantCulture) ?? "";
        return new Dictionary<string, string>
        {
            ["runtime"] = info.Runtime,
            ["targetFramework"] = info.TargetFramework ?? "",
            ["processorCount"] = S(info.ProcessorCount),
            ["gc"] = info.Gc.IsServerGC ? "server" : "workstation",
            ["gcHeapCount"] = S(info.Gc.HeapCount),
            ["gcDynamicAdaptationMode"] = S(info.Gc.DynamicAdaptationMode),
            ["gcConcurrent"] = S(info.Gc.Concurrent),
            ["threadPoolMin"] = $"{info.ThreadPool.MinWorkerThreads}/{info.ThreadPool.MinCompletionPortThreads}",
            ["threadPoolMax"] = $"{info.ThreadPool.MaxWorkerThreads}/{info.ThreadPool.MaxCompletionPortThreads}",
            ["serializer"] = info.Serializer,
            ["dataAccess"] = info.DataAccess,
            ["logging"] = info.Logging,
        };
    }

    private static string FirstLine(string text) => text.Split('\n')[0].Trim();

    private static string? RestOf(string text) => text.Contains('\n') ? text[(text.IndexOf('\n') + 1)..] : null;
}
