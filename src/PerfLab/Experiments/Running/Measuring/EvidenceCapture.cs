using System.Globalization;
using PerfLab.Apps;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Tracing;

namespace PerfLab.Experiments.Running.Measuring;

/// <summary>
/// Where a variant's request time goes: after a run's measured window, the same load goes on for a few
/// seconds more while an EventPipe trace (CPU samples with stacks, contention, GC, thread pool) records the SUT. The
/// trace never overlaps the measured window, so its cost cannot move the verdicts; it costs time instead
/// (<see cref="Length"/> plus the analysis). A speedscope file stays in the results folder, the .nettrace too if asked.
/// </summary>
public sealed class EvidenceCapture(string traceFolder, string resultsFolder, bool keepTrace = false)
{
    public static readonly TimeSpan Length = TimeSpan.FromSeconds(5);
    private const int MaxBatches = 10_000;
    // The load starts first and runs past both ends of the trace, so every traced second is a loaded one.
    private static readonly TimeSpan Lead = TimeSpan.FromMilliseconds(700);
    private static readonly TimeSpan Tail = TimeSpan.FromSeconds(1);

    /// <param name="measured">The run just measured on this SUT: its repetition names the trace, its database figures go beside it.</param>
    public async Task<TracedRun> CaptureAsync(ExperimentDefinition experiment, VariantDefinition variant, IRunningApp sut,
        RunRecord measured,
        CancellationToken ct)
    {
        Directory.CreateDirectory(traceFolder);
        var name = $"{experiment.Name}-{variant.Name}-{measured.Repetition}";
        var path = Path.Combine(traceFolder, name + ".nettrace");
        // A burst plan sends batches until the duration ends, so every traced second has requests in flight (one
        // batch, as the measured window's profile would give, finished before the trace began).
        var profile = new ProfileDefinition(TimeSpan.Zero, Lead + Length + Tail, 1, MaxBatches);
        var plan = ScenarioPlans.BuildPlan(experiment, variant, profile, sut);
        var load = LoadEngine.RunAsync(plan, progress: null, ct);
        await Task.Delay(Lead, ct);
        // Traced where the app runs (here, or by its role on its host and the file sent back), analysed here alike.
        var stretch = await sut.TraceAsync(Length, path, ct);
        var (seconds, threads) = (stretch.Seconds, stretch.Threads);
        var tracedFrom = DateTimeOffset.FromUnixTimeMilliseconds(stretch.StartedUnixMs);
        var charged = SamplerCharge.Of(stretch.ChargedMs, threads);
        var result = await load;

        var analyzed = TraceAnalysis.Analyze(path, new TraceAnalysisOptions(AppModule: stretch.AppModule));
        var covered = WithSamplerCoverage(analyzed, charged.SampledMs / seconds * analyzed.TracedSeconds);
        var trace = ToMeasuredCpu(covered, charged.AppMs / seconds);
        if (!keepTrace)
        {
            File.Delete(path);
        }
        var (requests, note) = TracedRequests.Divisor(TracedRequests.Between(result, tracedFrom, tracedFrom + Length),
            measured.Scenarios.Sum(s => s.Rps), trace.TracedSeconds, experiment.RunsForItsDuration);
        if (note is not null || requests < TraceFindings.MinRequests)
        {
            trace = trace with { Warnings = [.. trace.Warnings, note ?? TracedRequests.TooFew(requests)] };
        }
        var meanMs = TracedRequests.MeanLatencyMs(result);
        var speedscope = Path.Combine(traceFolder, name + ".speedscope.json");
        await File.WriteAllTextAsync(speedscope, StackExports.Speedscope(trace.Stacks, name), CancellationToken.None);
        var evidence = ToEvidence(trace, variant.Name, measured.Repetition, requests, measured.Database) with
        {
            SpeedscopeFile = Path.GetRelativePath(resultsFolder, speedscope),
        };
        return new TracedRun(evidence, TraceFindings.From(trace, requests, meanMs), trace.Warnings, threads);
    }

    /// <summary>
    /// The sample profiler counts a thread as on-CPU whenever it is in managed code, also while it waits for a core: on
    /// a machine with more runnable threads than cores that overstates CPU (here up to 2.2 cores' worth on 2 cores). So
    /// the components keep the samples' shares, and their total becomes the CPU the kernel charged the process
    /// (/proc/PID/stat) over the traced seconds.
    /// </summary>
    public static TraceProfile ToMeasuredCpu(TraceProfile trace, double cpuMsPerSecond)
    {
        var total = trace.CpuMs;
        if (total <= 0 || !double.IsFinite(cpuMsPerSecond) || cpuMsPerSecond <= 0)
        {
            return trace;
        }
        var factor = cpuMsPerSecond * trace.TracedSeconds / total;
        return trace with { Components = trace.Components.Select(c => c with { Ms = c.Ms * factor }).ToList() };
    }

    /// <summary>The least share of the CPU the kernel charged that the samples must cover for a CPU breakdown.</summary>
    public const double MinSampledShare = 0.25;

    /// <summary>
    /// The sampler stands for the process's CPU only if it delivered samples for it: it overstates CPU on a busy machine
    /// (see <see cref="ToMeasuredCpu"/>), so samples covering less than <see cref="MinSampledShare"/> of what the kernel
    /// charged mean the sampler missed most of the trace (seen once on net9.0: 7 samples for 4251 ms of CPU, and a GC
    /// "share" of 70 % made of the pauses against almost nothing). The breakdown and the GC's CPU share are then left out,
    /// with a warning, rather than spread over a handful of samples; the event-based figures stay.
    /// </summary>
    /// <param name="chargedMs">CPU the kernel charged the process over the traced seconds; NaN or 0 when unknown.</param>
    public static TraceProfile WithSamplerCoverage(TraceProfile trace, double chargedMs)
    {
        var sampledMs = trace.CpuSamples * trace.SampleIntervalMs;
        if (!double.IsFinite(chargedMs) || chargedMs <= 0 || sampledMs >= MinSampledShare * chargedMs)
        {
            return trace;
        }
        var warning = string.Create(CultureInfo.InvariantCulture,
            $"the sampler delivered {trace.CpuSamples} CPU samples ({sampledMs:F0} ms) for {chargedMs:F0} ms of CPU the kernel charged "
                + $"over the traced {trace.TracedSeconds:F1} s: the CPU breakdown and the GC's CPU share are left out.");
        return trace with
        {
            Components = [],
            Gc = trace.Gc with { ShareOfCpu = double.NaN, ShareOfCpuUpper = double.NaN },
            Warnings = [.. trace.Warnings, warning],
        };
    }

    public static VariantEvidence ToEvidence(TraceProfile trace, string variant, int repetition, long requests,
        DatabaseClientStats? database)
    {
        // Too few requests completed while tracing give no per-request figure: dividing would invent one.
        double PerRequest(double ms) => requests >= TraceFindings.MinRequests ? ms / requests : double.NaN;
        return new VariantEvidence
        {
            Variant = variant,
            Repetition = repetition,
            TracedSeconds = trace.TracedSeconds,
            Requests = requests,
            CpuSamples = trace.CpuSamples,
            CpuMsPerRequest = trace.Components.ToDictionary(c => c.Component.ToString(), c => PerRequest(c.Ms)),
            DatabaseMsPerRequest = database?.CommandMsPerRequest,
            LockBlockedMsPerRequest = PerRequest(trace.Contention.Sum(c => c.BlockedMs)),
            BlockingWaitMsPerRequest = BlockedPerRequest(trace) ?? PerRequest(trace.BlockingWaits.Sum(w => w.Ms)),
            GcPauseShare = trace.Gc.PauseShareOfWall,
            GcCpuShare = double.IsFinite(trace.Gc.ShareOfCpu) ? trace.Gc.ShareOfCpu : null,
            Contention = trace.Contention.Where(c => c.Count > 0 && c.BlockedMs >= TraceFindings.MinBlockedMs).Take(5)
                .Select(c => new CallSite(Named(c.Place, c.AppPlace), c.Count, c.BlockedMs, c.ExampleStack)).ToList(),
            BlockingWaits = trace.BlockingWaits.Where(w => w.Ms >= TraceFindings.MinBlockedMs).Take(5).Select(w =>
                new CallSite(Named(TraceFindings.Handler(w), w.AppPlace), w.Waits, w.Ms, w.ExampleStack)
                {
                    Call = TraceFindings.CallName(w), Advice = w.Advice,
                    MsPerRequest = w.Route?.MsPerRequest ?? (double.IsFinite(w.MsPerRequest) ? w.MsPerRequest : PerRequest(w.Ms)),
                }).ToList(),
            BlockedThreadsAtOnce = trace.PoolThreads?.BlockedAtOnceMean,
            TopStacks = trace.TopStacks.Select(s => new StackSample(s.Frames, s.Samples)).ToList(),
        };
    }

    /// <summary>
    /// Blocked ms per request over the requests served wholly inside the trace, from their own events (RequestTally); null
    /// when the trace has none or too few (the thread time over the requests completed while it ran stands in).
    /// </summary>
    public static double? BlockedPerRequest(TraceProfile trace) =>
        trace.Requests is { Requests: >= TraceFindings.MinRequests } served ? served.BlockedMsPerRequest : null;

    /// <summary>A site in a library says which of the app's methods led there.</summary>
    private static string Named(string place, string? appPlace) =>
        appPlace is null || appPlace == place ? place : $"{place} (from {appPlace})";

    public static string Describe(TracedRun run) => string.Create(CultureInfo.InvariantCulture,
        $"traced {run.Evidence.TracedSeconds:F1} s, {run.Evidence.Requests} requests, {run.Evidence.CpuSamples} CPU " +
            $"samples, {run.Findings.Count} findings") +
        SamplerCharge.Describe(run.ThreadCpu) +
        string.Concat(run.Warnings.Select(w => "\n    trace warning: " + w));
}
