using PerfLab.Load;

namespace PerfLab.Hosts;

/// <summary>What one generator sent back: its own result, its per-second interval log and its measured window's histograms.</summary>
public sealed record GeneratorRun(HostRef Host, LoadResult Result, IReadOnlyList<LogInterval> Intervals,
    IReadOnlyList<LogInterval> Windows);

/// <summary>One generator's own figures, kept beside the merged ones.</summary>
public sealed record GeneratorFigures(string Host, long Requests, double RequestsPerSecond, double P50Ms, double P99Ms, double CoresUsed,
    int Cores, bool Saturated);

/// <summary>The load of every generator as one run, and each generator's part.</summary>
public sealed record RemoteLoadResult(LoadResult Merged, IReadOnlyList<GeneratorFigures> Generators)
{
    /// <summary>Generators that were their own limit: the merged throughput describes them, not the target.</summary>
    public IEnumerable<string> SaturatedHosts => Generators.Where(g => g.Saturated).Select(g => g.Host);

    /// <summary>Why a generator failed mid-run, its host named; null when all ran. The others' figures are the merged ones.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public Exception? Failure { get; init; }
}

/// <summary>
/// Adds generators' runs into one: histograms bucket by bucket (so the percentiles are those of one generator that had
/// sent everything, to the histogram's precision), completions and errors summed over each one's measured window, the
/// mean exact (from each generator's exact mean and count). Never a percentile of percentiles.
/// </summary>
public static class LoadMerge
{
    public static RemoteLoadResult Merge(IReadOnlyList<GeneratorRun> runs)
    {
        var first = runs[0].Result;
        var scenarios = first.Scenarios.Select(s => MergeScenario(s.Name, runs)).ToList();
        var merged = first with
        {
            StartedUtc = runs.Min(r => r.Result.StartedUtc),
            MeasuredFromUtc = runs.Min(r => r.Result.MeasuredFromUtc),
            EndedUtc = runs.Max(r => r.Result.EndedUtc),
            Incomplete = runs.Any(r => r.Result.Incomplete),
            IncompleteReason = string.Join("; ", runs.Where(r => r.Result.IncompleteReason is not null)
                .Select(r => $"{r.Host.Destination}: {r.Result.IncompleteReason}")) is { Length: > 0 } why ? why : null,
            // The busiest generator speaks for them (each one's own figures are kept beside): a saturated one flags the run.
            Generator = runs.Select(r => r.Result.Generator).MaxBy(g => g.CoresUsed / Math.Max(1, g.AvailableCores))! with
            {
                Saturated = runs.Any(r => r.Result.Generator.Saturated),
            },
            Scenarios = scenarios,
        };
        var figures = runs.Select(r => new GeneratorFigures(
            r.Host.Destination,
            r.Result.Scenarios.Sum(s => s.Requests),
            r.Result.Scenarios.Sum(s => s.RequestsPerSecond),
            r.Result.Scenarios[0].Latency.P50Ms,
            r.Result.Scenarios[0].Latency.P99Ms,
            r.Result.Generator.CoresUsed,
            r.Result.Generator.AvailableCores,
            r.Result.Generator.Saturated)).ToList();
        return new RemoteLoadResult(merged, figures);
    }

    private static ScenarioResult MergeScenario(string name, IReadOnlyList<GeneratorRun> runs)
    {
        var parts = runs.Select(r => r.Result.Scenarios.Single(s => s.Name == name)).ToList();
        var latency = IntervalLog.Merge(runs.SelectMany(r => r.Windows).Where(w => w.Tag == name));
        var uncorrected = runs.SelectMany(r => r.Windows).Where(w => w.Tag == name + GeneratorRole.UncorrectedSuffix).ToList();
        var count = parts.Sum(p => p.Latency.Count);
        var exactMean = count == 0 ? 0 : parts.Sum(p => p.Latency.MeanMs * p.Latency.Count) / count;
        var uncorrectedLatency = uncorrected.Count > 0 ? IntervalLog.Merge(uncorrected) : null;
        return parts[0] with
        {
            Concurrency = parts.Sum(p => p.Concurrency),
            Requests = parts.Sum(p => p.Requests),
            RequestsPerSecond = parts.Sum(p => p.RequestsPerSecond),
            Latency = LatencyStats.From(latency) with { MeanMs = exactMean },
            UncorrectedLatency = uncorrectedLatency is null ? null : LatencyStats.From(uncorrectedLatency),
            BytesReceived = parts.Sum(p => p.BytesReceived),
            Errors = MergeErrors(parts.Select(p => p.Errors)),
            Open = parts[0].Open is { } open ? open with
            {
                Rate = parts.Sum(p => p.Open!.Rate),
                Scheduled = parts.Sum(p => p.Open!.Scheduled),
                Sent = parts.Sum(p => p.Open!.Sent),
                LateSends = parts.Sum(p => p.Open!.LateSends),
                MaxLagMs = parts.Max(p => p.Open!.MaxLagMs),
            } : null,
            Timeline = MergeTimeline(name, runs, parts),
            InFlightAtEnd = parts.Sum(p => p.InFlightAtEnd),
            InFlightOldestMs = parts.Max(p => p.InFlightOldestMs),
            Histogram = latency,
            UncorrectedHistogram = uncorrectedLatency,
        };
    }

    private static ErrorCounts MergeErrors(IEnumerable<ErrorCounts> all)
    {
        var kinds = new SortedDictionary<string, long>(StringComparer.Ordinal);
        long total = 0;
        foreach (var errors in all)
        {
            total += errors.Total;
            foreach (var (kind, n) in errors.ByKind)
            {
                kinds[kind] = kinds.GetValueOrDefault(kind) + n;
            }
        }
        return new ErrorCounts(total, kinds);
    }

    /// <summary>Per UTC second: counts summed over the generators, percentiles from that second's merged interval histograms.</summary>
    private static List<LoadSecond> MergeTimeline(string name, IReadOnlyList<GeneratorRun> runs, List<ScenarioResult> parts)
    {
        var histograms = runs.SelectMany(r => r.Intervals).Where(i => i.Tag == name)
            .GroupBy(i => i.Start.ToUnixTimeSeconds())
            .ToDictionary(g => g.Key, g => IntervalLog.Merge(g));
        return
        [
            .. parts.SelectMany(p => p.Timeline).GroupBy(t => t.UnixSecond).OrderBy(g => g.Key).Select(g =>
            {
                var h = histograms.GetValueOrDefault(g.Key);
                return new LoadSecond(g.Key, g.Any(t => t.Warmup), g.Sum(t => t.Requests), g.Sum(t => t.RequestsPerSecond),
                    h is null ? g.Max(t => t.P50Ms) : h.Percentile(50) / 1000.0,
                    h is null ? g.Max(t => t.P99Ms) : h.Percentile(99) / 1000.0,
                    g.Sum(t => t.Errors), g.Sum(t => t.ActiveUsers));
            }),
        ];
    }
}
