using PerfLab.Results;

namespace PerfLab.Reports;

// The evidence figures report.html's scripts draw: where the time goes as stacked bars, every run in run order, and
// the flame graphs. Built from the result graph only, serialized into the page with the other charts.

/// <summary>Two stacks per variant: CPU by component and the waits, in ms per request.</summary>
internal sealed record StackedBars(IReadOnlyList<string> Variants, IReadOnlyList<StackedSeries> Series);

/// <summary>One segment of every variant's bar; <c>Stack</c> is "cpu" or "wait".</summary>
internal sealed record StackedSeries(string Label, string Stack, IReadOnlyList<double?> Values);

/// <summary>Every successful run's figure against its place in the run order, one series per variant.</summary>
internal sealed record RunOrderChart(string Title, string Unit, IReadOnlyList<RunOrderSeries> Series);

internal sealed record RunOrderSeries(string Variant, IReadOnlyList<int> Order, IReadOnlyList<int> Repetition,
    IReadOnlyList<double?> Value);

internal static class EvidenceCharts
{
    public static StackedBars? Breakdown(ExperimentResult experiment)
    {
        var evidence = TimeContent.Evidence(experiment);
        if (evidence.Count == 0)
        {
            return null;
        }
        var series = TimeContent.ComponentsOf(evidence)
            .Select(c => new StackedSeries("CPU: " + c.Label, "cpu",
                evidence.Select(e => Finite(e.CpuMsPerRequest.TryGetValue(c.Key, out var v) ? v : null)).ToList()))
            .Append(new StackedSeries("wait: database", "wait", evidence.Select(e => Finite(e.DatabaseMsPerRequest)).ToList()))
            .Append(new StackedSeries("wait: lock-blocked", "wait", evidence.Select(e => Finite(e.LockBlockedMsPerRequest)).ToList()))
            .Append(new StackedSeries("wait: blocking wait", "wait", evidence.Select(e => Finite(e.BlockingWaitMsPerRequest)).ToList()))
            .Where(s => s.Values.Any(v => v is not null))
            .ToList();
        return new StackedBars(evidence.Select(e => e.Variant).ToList(), series);
    }

    /// <summary>All-scenario RPS (burst and upload experiments: mean batch time) of every successful run, in run order.</summary>
    public static RunOrderChart? RunOrder(ExperimentResult experiment)
    {
        var burst = experiment.Runs.Any(r => r.BatchTimesMs.Count > 0);
        var series = new List<RunOrderSeries>();
        foreach (var variant in experiment.Variants)
        {
            var runs = ReportContent.OkRuns(experiment).Where(r => r.Variant == variant).OrderBy(r => r.Order).ToList();
            if (runs.Count == 0)
            {
                continue;
            }
            series.Add(new RunOrderSeries(
                variant,
                runs.Select(r => r.Order).ToList(),
                runs.Select(r => r.Repetition).ToList(),
                runs.Select(r => Finite(burst && r.BatchTimesMs.Count > 0 ? r.BatchTimesMs.Average() : r.Scenarios.Sum(s => s.Rps)))
                    .ToList()));
        }
        if (series.Count == 0)
        {
            return null;
        }
        return burst
            ? new RunOrderChart("Mean batch time of every run, in run order", "ms", series)
            : new RunOrderChart("All-scenario RPS of every run, in run order", "RPS", series);
    }

    private static double? Finite(double? value) => value is { } v && double.IsFinite(v) ? v : null;
}
