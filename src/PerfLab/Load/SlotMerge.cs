using System.Globalization;

namespace PerfLab.Load;

/// <summary>
/// One result from the load runs of several measured slots of the same target (alternating slots, see
/// ProfileDefinition.Slots): requests and errors add up, throughput is requests over the slots' measured seconds (not
/// the wall-clock span, which holds the other variants' slots), latency percentiles come from the merged histograms,
/// and the timeline holds the slots' seconds only.
/// </summary>
public static class SlotMerge
{
    public static LoadResult Merge(IReadOnlyList<LoadResult> slots)
    {
        if (slots.Count == 0)
        {
            throw new ArgumentException("no slot to merge", nameof(slots));
        }
        if (slots.Count == 1)
        {
            return slots[0];
        }
        var seconds = slots.Sum(s => s.MeasuredSeconds);
        var scenarios = slots[0].Scenarios.Select(first => MergeScenario(first.Name, slots, seconds)).ToList();
        var reasons = slots.Where(s => s.IncompleteReason is not null).Select(s => s.IncompleteReason!).Distinct().ToList();
        return new LoadResult(slots[0].StartedUtc, slots[0].MeasuredFromUtc, slots[^1].EndedUtc, slots.Any(s => s.Incomplete),
            reasons.Count > 0 ? string.Join("; ", reasons) : null, MergeGenerator(slots, scenarios.Sum(s => s.Requests)), scenarios)
        {
            WarmupSeconds = slots[0].WarmupSeconds,
            Settled = slots[0].Settled,
        };
    }

    private static ScenarioResult MergeScenario(string name, IReadOnlyList<LoadResult> slots, double seconds)
    {
        var parts = slots.Select(s => s.Scenarios.FirstOrDefault(r => r.Name == name)
            ?? throw new ArgumentException($"slot without scenario {name}", nameof(slots))).ToList();
        var latency = MergeHistograms(parts.Select(p => p.Histogram), name);
        var uncorrected = parts[0].UncorrectedHistogram is null ? null : MergeHistograms(parts.Select(p => p.UncorrectedHistogram), name);
        var requests = parts.Sum(p => p.Requests);
        var first = parts[0];
        var stats = LatencyStats.From(latency);
        return new ScenarioResult(name, first.Model, first.Url, first.Concurrency, requests, seconds > 0 ? requests / seconds : 0,
            stats, uncorrected is null ? null : LatencyStats.From(uncorrected), parts.Sum(p => p.BytesReceived),
            MergeErrors(parts.Select(p => p.Errors)), MergeOpen(parts.Select(p => p.Open)), null, null,
            parts.SelectMany(p => p.Timeline).OrderBy(p => p.UnixSecond).ToList())
        {
            InFlightAtEnd = parts.Sum(p => p.InFlightAtEnd),
            InFlightOldestMs = parts.Max(p => p.InFlightOldestMs),
            // Bounded when the median exceeds a fifth of one slot: each slot is a window of its own.
            BoundedByWindow = parts.Any(p => p.BoundedByWindow),
            Histogram = latency,
            UncorrectedHistogram = uncorrected,
            Request = first.Request,
        };
    }

    private static LatencyHistogram MergeHistograms(IEnumerable<LatencyHistogram?> histograms, string scenario)
    {
        var merged = new LatencyHistogram();
        foreach (var h in histograms)
        {
            merged.Add(h ?? throw new ArgumentException(string.Create(CultureInfo.InvariantCulture,
                $"scenario {scenario}: a slot's result has no histogram to merge (results read back from JSON cannot be merged)")));
        }
        return merged;
    }

    private static ErrorCounts MergeErrors(IEnumerable<ErrorCounts> errors)
    {
        var all = errors.ToList();
        var kinds = all.SelectMany(e => e.ByKind).GroupBy(p => p.Key).ToDictionary(g => g.Key, g => g.Sum(p => p.Value));
        return new ErrorCounts(all.Sum(e => e.Total), kinds);
    }

    private static OpenSchedule? MergeOpen(IEnumerable<OpenSchedule?> schedules)
    {
        var all = schedules.OfType<OpenSchedule>().ToList();
        return all.Count == 0
            ? null
            : new OpenSchedule(all[0].Rate, all.Sum(s => s.Scheduled), all.Sum(s => s.Sent), all.Sum(s => s.LateSends),
                all.Max(s => s.MaxLagMs));
    }

    private static GeneratorUsage MergeGenerator(IReadOnlyList<LoadResult> slots, long requests)
    {
        var g = slots.Select(s => s.Generator).ToList();
        var cpu = g.Sum(x => x.CpuSeconds);
        var wall = g.Sum(x => x.WallSeconds);
        var slotRequests = slots.Select(s => s.Scenarios.Sum(r => r.Requests)).ToList();
        var allocated = g.Zip(slotRequests, (x, n) => x.AllocatedBytesPerRequest * n).Sum();
        return new GeneratorUsage(cpu, wall, wall > 0 ? cpu / wall : 0, g[0].AvailableCores, g.Any(x => x.Saturated),
            requests > 0 ? cpu * 1e6 / requests : 0, requests > 0 ? allocated / requests : 0, g.Max(x => x.EventThreadBusy),
            g[0].Transport);
    }
}
