using System.Globalization;
using PerfLab.Common;

namespace PerfLab.Results;

/// <summary>
/// The metric catalog: the one vocabulary of analysis, thresholds, experiment files, reports and charts. Each entry
/// says how to read its figure from a run; everything else (summaries, comparisons, gates, table columns) is driven
/// by the entries, so adding a metric is adding an entry here.
/// </summary>
public static class Metrics
{
    public static readonly Metric Rps = new()
    {
        Key = "rps", Header = "RPS", Unit = "RPS", Role = MetricRole.Compared, HigherIsBetter = true, Decimals = 1, Primary = true,
        ThresholdNames = ["rps"], OfScenario = s => s.Rps, OfScenarios = stats => stats.Sum(s => s.Rps),
        MoreWords = "serves {0} more requests than", LessWords = "serves {0} fewer requests than", DecideWord = "rps",
    };

    public static readonly Metric MeanMs = new()
    {
        Key = "mean-ms", Header = "mean (ms)", Unit = "ms", Role = MetricRole.Compared,
        ThresholdNames = ["mean"], OfScenario = s => s.MeanMs,
        // All scenarios together: the request-weighted mean.
        OfScenarios = stats => stats.Sum(s => s.Requests) is > 0 and var n ? stats.Sum(s => s.MeanMs * s.Requests) / n : double.NaN,
    };

    public static readonly Metric P90Ms = Latency("p90", s => s.P90Ms, MetricRole.Compared);
    public static readonly Metric P99Ms = Latency("p99", s => s.P99Ms, MetricRole.Compared) with
    {
        DecideWord = "latency",
        MoreWords = "has a {0} higher p99 latency than", LessWords = "has a {0} lower p99 latency than",
    };

    public static readonly Metric BatchMeanMs = new()
    {
        Key = "batch-mean-ms", Header = "batch mean (ms)", Unit = "ms", Role = MetricRole.Batch, Primary = true,
        MoreWords = "takes {0} longer per batch than", LessWords = "takes {0} less time per batch than",
        OfRun = run => run.BatchTimesMs.Count > 0 ? run.BatchTimesMs.Average() : double.NaN,
    };

    // Counters keep their dotnet-counters names (Common/CounterNames) as keys: those are the keys of every run's counter averages.
    public static readonly Metric ThreadCount = Counter(CounterNames.ThreadCount, "thread-pool threads", "threads", 1);
    public static readonly Metric QueueLength = Counter(CounterNames.QueueLength, "queue length", "work items", 1);
    public static readonly Metric TimeInGc = Counter(CounterNames.TimeInGc, "time in GC %", "%", 1);
    public static readonly Metric AllocRate = Counter(CounterNames.AllocRate, "alloc rate MB/s", "MB/s", 2) with { Scale = 1e-6 };
    public static readonly Metric WorkingSet = Counter(CounterNames.WorkingSet, "working set MB", "MB", 1);
    /// <summary>Read for the efficiency figures; not a report column of its own.</summary>
    public static readonly Metric CpuUsage = Counter(CounterNames.CpuUsage, "CPU %", "%", 1);

    /// <summary>cpu-usage is a percent of all the cores the SUT saw: the CPU time per request in ms.</summary>
    public static readonly Metric CpuMsPerRequest = PerRequest("cpu-ms-per-request", "CPU ms/req", "ms/req", 3,
        run => CpuUsage.Read(run, Metric.AllScenarios) / 100 * SutCores(run) * 1000);

    /// <summary>KB = 1,000 bytes, as the counters' MB are 1,000,000 bytes.</summary>
    public static readonly Metric AllocKbPerRequest = PerRequest("alloc-kb-per-request", "alloc KB/req", "KB/req", 1,
        run => AllocRate.Read(run, Metric.AllScenarios) / 1000);

    /// <summary>time-in-gc is a percent of wall time.</summary>
    public static readonly Metric GcPauseMsPerRequest = PerRequest("gc-pause-ms-per-request", "GC pause ms/req", "ms/req", 3,
        run => TimeInGc.Read(run, Metric.AllScenarios) / 100 * 1000);

    /// <summary>Every entry, in the order reports show them.</summary>
    /// <summary>
    /// The CPU the kernel charged the app and the PostgreSQL backends serving it, per request completed, over exactly
    /// the measured windows (<see cref="CpuCost"/>): all scenarios together, CPU not being told apart by scenario.
    /// </summary>
    public static readonly Metric CpuPerRequest = new()
    {
        Key = "cpu-per-request", Header = "CPU per request (ms)", Unit = "ms", Role = MetricRole.RunCompared, Decimals = 3,
        ThresholdNames = ["cpu-per-request"], ShortName = "CPU/req", DecideWord = "cost",
        MoreWords = "costs {0} more CPU per request than", LessWords = "costs {0} less CPU per request than",
        OfRun = run => run.Cost?.MsPerRequest ?? double.NaN, OfWindow = (_, w) => w.MsPerRequest,
    };

    /// <summary>
    /// <see cref="CpuPerRequest"/> with each window's CPU divided by how much slower than full speed the cores ran in it
    /// (<see cref="CpuCost.FullSpeedMsPerRequest"/>): a shared host slows a core for seconds at a time, by up to about
    /// 1.9x here, and CPU charged then reads as a dearer request. What decides <c>decide: cost</c> when every run was
    /// sampled. Its full speed is the invocation's own (the fastest the cores ran while it calibrated), so it compares
    /// the variants of one invocation and is no figure to hold a threshold or another invocation against.
    /// </summary>
    public static readonly Metric CpuPerRequestAtFullSpeed = new()
    {
        Key = "cpu-per-request-full-speed", Header = "CPU per request at full speed (ms)", Unit = "ms", Role = MetricRole.RunCompared,
        Decimals = 3, ShortName = "full-speed CPU/req",
        MoreWords = "costs {0} more CPU per request at full speed than", LessWords = "costs {0} less CPU per request at full speed than",
        OfRun = run => run.Cost?.FullSpeedMsPerRequest ?? double.NaN,
        OfWindow = (cost, w) => cost.IsSpike(w) ? null : w.FullSpeedMsPerRequest,
    };

    /// <summary>
    /// A capacity experiment's figure: the highest arrival rate a run's search found its app to sustain within the SLO
    /// (sent and completed in a step that held; <see cref="CapacityResult.CapacityRps"/>). Compared per run, as a
    /// batch time is, since a run searches one scenario.
    /// </summary>
    public static readonly Metric CapacityRps = new()
    {
        Key = "capacity-rps", Header = "capacity (RPS)", Unit = "RPS", Role = MetricRole.Batch, HigherIsBetter = true, Decimals = 1,
        Primary = true, MoreWords = "sustains {0} more RPS than", LessWords = "sustains {0} fewer RPS than",
        OfRun = run => run.Capacity?.CapacityRps ?? double.NaN,
        DecideWord = "capacity", DecideNeeds = "a capacity: block (slo, from, max) saying within what and over which rates",
        ThresholdNames = ["capacity"],
    };

    public static readonly IReadOnlyList<Metric> All =
    [
        Rps, MeanMs, Latency("p50", s => s.P50Ms), Latency("p75", s => s.P75Ms), P90Ms, Latency("p95", s => s.P95Ms), P99Ms,
        Latency("p99.9", s => s.P999Ms) with { ThresholdNames = ["p99.9", "p999"] }, Latency("max", s => s.MaxMs),
        BatchMeanMs, CapacityRps, ThreadCount, QueueLength, TimeInGc, AllocRate, WorkingSet, CpuUsage,
        CpuMsPerRequest, AllocKbPerRequest, GcPauseMsPerRequest, CpuPerRequest, CpuPerRequestAtFullSpeed,
    ];

    /// <summary>The entries of one role, in catalog order.</summary>
    public static IReadOnlyList<Metric> Of(MetricRole role) => [.. All.Where(m => m.Role == role)];

    /// <summary>The metrics compared against the baseline per scenario: throughput first, then latency.</summary>
    public static IReadOnlyList<Metric> Compared => Of(MetricRole.Compared);

    /// <summary>The counter columns of the reports (cpu-usage is read for efficiency, not shown on its own).</summary>
    public static IReadOnlyList<Metric> CounterColumns => [.. Of(MetricRole.Counter).Where(m => m != CpuUsage)];

    public static IReadOnlyList<Metric> Efficiency => Of(MetricRole.Efficiency);

    /// <summary>The metrics a claim or a comparison may name: compared and batch metrics.</summary>
    public static IReadOnlyList<Metric> Comparable =>
        [.. All.Where(m => m.Role is MetricRole.Compared or MetricRole.Batch or MetricRole.RunCompared)];

    /// <summary>
    /// An experiment's own figure (its sweep's, and the deciding one when cost or latency was not compared): the batch
    /// time of a burst or upload experiment, else the throughput.
    /// </summary>
    public static Metric Primary(bool batches) => batches ? BatchMeanMs : Rps;

    /// <summary>
    /// The metric a word of <c>decide:</c> names (rps, cost: CPU per request, latency: p99, capacity), as experiment files
    /// and change gates (<c>cost-change</c>) spell it; null for any other word.
    /// </summary>
    public static Metric? Deciding(string word) => All.FirstOrDefault(m => m.DecideWord == word);

    /// <summary>The words any experiment may give <c>decide:</c>, for messages: "rps, cost (CPU per request) or latency (p99)".</summary>
    public static string DecideSpellings()
    {
        var words = All.Where(m => m.DecideWord is not null && m.DecideNeeds is null)
            .Select(m => m.DecideWord == m.Key ? m.Key : $"{m.DecideWord} ({m.Name})").ToList();
        return words.Count < 2 ? string.Concat(words) : string.Join(", ", words[..^1]) + " or " + words[^1];
    }

    /// <summary>An entry by its key; null when there is none.</summary>
    public static Metric? Find(string key) => All.FirstOrDefault(m => m.Key == key);

    /// <summary>An entry by its key, for keys the code itself wrote (results.json, comparisons).</summary>
    public static Metric Get(string key) => Find(key) ?? throw new KeyNotFoundException($"no metric '{key}' in the catalog");

    /// <summary>The scenario metric a threshold names ("p99", "mean", "rps", or a key such as "p90-ms"); null when none.</summary>
    public static Metric? ForThreshold(string name) =>
        All.FirstOrDefault(m => m.OfScenario is not null && (m.ThresholdNames.Contains(name) || m.Key == name));

    /// <summary>The threshold spellings of every scenario metric, for messages: "rps|mean|p50|...".</summary>
    public static string ThresholdSpellings(Func<Metric, bool> which) =>
        string.Join("|", All.Where(m => m.OfScenario is not null && which(m)).Select(m => m.ThresholdNames[0]));

    /// <summary>The cores the SUT process saw (its /info), which cpu-usage is a share of.</summary>
    public static int SutCores(RunRecord run) =>
        run.SutInfo.TryGetValue("processorCount", out var c) && int.TryParse(c, CultureInfo.InvariantCulture, out var n)
            ? n
            : Environment.ProcessorCount;

    /// <summary>A latency percentile (or mean, max) of a scenario; all scenarios together take the worst.</summary>
    private static Metric Latency(string name, Func<ScenarioStats, double> read, MetricRole role = MetricRole.GateOnly) => new()
    {
        Key = name + "-ms", Header = name + " (ms)", Unit = "ms", Role = role, ThresholdNames = [name], OfScenario = read,
    };

    private static Metric Counter(string key, string header, string unit, int decimals) => new()
    {
        Key = key, Header = header, Unit = unit, Role = MetricRole.Counter, Decimals = decimals,
        OfRun = run => run.Counters.TryGetValue(key, out var v) ? v : double.NaN,
    };

    /// <summary>A per-request cost: a per-second figure of the run over its completed requests per second.</summary>
    private static Metric PerRequest(string key, string header, string unit, int decimals, Func<RunRecord, double> perSecond) => new()
    {
        Key = key, Header = header, Unit = unit, Role = MetricRole.Efficiency, Decimals = decimals,
        OfRun = run => run.Scenarios.Sum(s => s.Rps) is > 0 and var rps ? perSecond(run) / rps : double.NaN,
    };
}
