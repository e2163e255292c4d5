using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Experiments.Analysis;

/// <summary>
/// Findings computed from each variant's counters, events and load figures, each naming the seed recommendation
/// that addresses it. A finding is reported when most successful runs of the variant show it.
/// </summary>
public static class Diagnosis
{
    public const double GcPressurePercent = 20;          // seed 000: 20 % of the time in GC or more is a problem
    public const double ContentionsPerRequest = 0.05;
    public const double ErrorShare = 0.01;
    public const double StarvedSecondsShare = 0.5;

    public static IReadOnlyList<Finding> Diagnose(ExperimentDefinition experiment, IReadOnlyList<RunRecord> runs)
    {
        var findings = new List<Finding>();
        foreach (var variant in experiment.Variants)
        {
            var ok = runs.Where(r => r.Variant == variant.Name && r.Status == RunStatus.Ok).ToList();
            if (ok.Count == 0)
            {
                continue;
            }
            var perRun = ok.Select(Check).ToList();
            foreach (var kind in Enum.GetValues<FindingKind>())
            {
                var hits = perRun.SelectMany(f => f).Where(f => f.Kind == kind).ToList();
                if (hits.Count * 2 > ok.Count || (ok.Count <= 2 && hits.Count > 0))
                {
                    var first = hits[0];
                    findings.Add(new Finding(variant.Name, kind, first.Message, first.Recommendation,
                        $"{hits.Count} of {ok.Count} runs; first: {first.Evidence}"));
                }
            }
        }
        return findings;
    }

    private static IEnumerable<(FindingKind Kind, string Message, string Recommendation, string Evidence)> Check(RunRecord run) =>
        Starvation(run).Concat(Contention(run)).Concat(GcPressure(run)).Concat(Blocked(run)).Concat(Generator(run)).Concat(Failures(run));

    private static double Counter(RunRecord run, string name) => run.Counters.TryGetValue(name, out var v) ? v : double.NaN;

    private static string F(double v) => v.ToString("0.##", CultureInfo.InvariantCulture);

    private static IEnumerable<(FindingKind, string, string, string)> Starvation(RunRecord run)
    {
        var seconds = run.Timeline.Count;
        var starvedSeconds = run.Timeline.Count(p => p.Counters.TryGetValue(CounterNames.QueueLength, out var q) && q > 0);
        var firstThreads = run.Timeline.Select(p => p.Counters.GetValueOrDefault(CounterNames.ThreadCount, double.NaN))
            .FirstOrDefault(double.IsFinite, double.NaN);
        var lastThreads = run.Timeline.Select(p => p.Counters.GetValueOrDefault(CounterNames.ThreadCount, double.NaN))
            .LastOrDefault(double.IsFinite, double.NaN);
        var climbing = lastThreads - firstThreads >= 2 || run.StarvationInjections > 0;
        if (seconds > 0 && starvedSeconds >= seconds * StarvedSecondsShare && climbing)
        {
            yield return (FindingKind.ThreadPoolStarvation,
                "Thread-pool starvation: work waited in the queue most of the run while the pool kept adding threads.",
                "Use async/await for I/O end to end (seed 000 recommendation 4, seed 003); as a stopgap raise "
                    + "ThreadPool.SetMinThreads (seed 000 recommendation 5).",
                $"queue > 0 in {starvedSeconds} of {seconds} s, threads {F(firstThreads)} "
                    + $"-> {F(lastThreads)}, {run.StarvationInjections} starvation injections");
        }
    }

    private static IEnumerable<(FindingKind, string, string, string)> Contention(RunRecord run)
    {
        var rps = run.Scenarios.Sum(s => s.Rps);
        var contention = Counter(run, CounterNames.LockContention);
        if (rps > 0 && contention / rps > ContentionsPerRequest)
        {
            yield return (FindingKind.LockContention,
                "Lock contention: threads queue for a monitor on the request path.",
                "Take locks (and console writes or telemetry flushes inside them) off the hot path; log through LoggerMessage (seed 004).",
                $"{F(contention)} contentions/s at {F(rps)} RPS = {F(contention / rps)} per request");
        }
    }

    private static IEnumerable<(FindingKind, string, string, string)> GcPressure(RunRecord run)
    {
        var timeInGc = Counter(run, CounterNames.TimeInGc);
        if (timeInGc > GcPressurePercent)
        {
            yield return (FindingKind.GcPressure,
                "GC pressure: more than 20 % of the time in garbage collection.",
                "Use Server GC (seed 000 recommendation 3) and allocate less, e.g. System.Text.Json instead of "
                    + "Newtonsoft.Json (recommendation 2).",
                $"time in GC {F(timeInGc)} %, allocation {F(Counter(run, CounterNames.AllocRate) / 1e6)} MB/s");
        }
    }

    private static IEnumerable<(FindingKind, string, string, string)> Blocked(RunRecord run)
    {
        var cpu = Counter(run, CounterNames.CpuUsage);
        var queue = Counter(run, CounterNames.QueueLength);
        var threads = Counter(run, CounterNames.ThreadCount);
        var cores = Metrics.SutCores(run);
        if (cpu < 50 && (queue > 1 || threads > 4 * cores) && run.Scenarios.Sum(s => s.Rps) > 0)
        {
            yield return (FindingKind.BlockedThreadsLowCpu,
                "Blocked threads at low CPU: many threads exist or wait while the processor idles, so they are blocked, not busy.",
                "Await I/O and delays instead of blocking on them (Thread.Sleep, .Result, .Wait()): seeds 001, 003, 004.",
                $"CPU {F(cpu)} %, {F(threads)} pool threads, queue {F(queue)}");
        }
    }

    private static IEnumerable<(FindingKind, string, string, string)> Generator(RunRecord run)
    {
        if (run.GeneratorSaturated)
        {
            yield return (FindingKind.GeneratorSaturated,
                "The load generator, not the SUT, was the limit: these figures understate what the SUT can serve.",
                "Give the generator its own core (pinning) or lower the user count.",
                $"generator CPU {F(run.GeneratorCpuPercent)} % of one core");
        }
    }

    private static IEnumerable<(FindingKind, string, string, string)> Failures(RunRecord run)
    {
        var requests = run.Scenarios.Sum(s => s.Requests);
        var errors = run.Scenarios.Sum(s => s.Errors);
        var timeouts = run.Scenarios.Sum(s => s.ErrorsByKind.GetValueOrDefault("timeout"));
        if (timeouts > 0)
        {
            yield return (FindingKind.Timeouts,
                "Requests timed out.",
                "Look for starvation or blocking above; a timeout is a latency the percentiles cannot show.",
                $"{timeouts} timeouts of {requests} requests");
        }
        if (requests > 0 && errors - timeouts > requests * ErrorShare)
        {
            var kinds = string.Join(", ", run.Scenarios.SelectMany(s => s.ErrorsByKind).Where(k => k.Key != "timeout")
                .GroupBy(k => k.Key).Select(g => $"{g.Key}: {g.Sum(k => k.Value)}"));
            yield return (FindingKind.Errors,
                "More than 1 % of the requests failed.",
                "Figures of a failing variant are not comparable; read the SUT log tail in the run record.",
                $"{errors - timeouts} errors of {requests} requests ({kinds})");
        }
    }
}
