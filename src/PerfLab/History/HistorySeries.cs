using PerfLab.Results;

namespace PerfLab.History;

/// <summary>What one series is of: a variant's metric in one scenario, on one machine (or "any" when asked to mix).</summary>
public sealed record SeriesKey(string Experiment, string Variant, string Scenario, string Metric, string Machine)
{
    public override string ToString() =>
        $"{Experiment} {Variant}, {Metric}" + (Scenario == Results.Metric.AllScenarios ? "" : $" ({Scenario})") + $" on {Machine}";
}

/// <summary>One run's figure in a series; hollow when the run's stated noise floor exceeds the change it is read against.</summary>
public sealed record SeriesPoint(HistoryRun Run, HistoryPoint Point, bool Hollow);

/// <summary>
/// A change point: the series' level moved between the run at <see cref="Index"/> − 1 and the run at
/// <see cref="Index"/>, by <see cref="ChangePercent"/> (the segment after against the segment before, Welch on log
/// values, with its 95 % interval).
/// </summary>
/// <param name="IsNew">True when the change point appears only with the series' newest run: without that run, none is found
/// at this index (an earlier one that the newest run moves counts as new: the picture near the end is still forming).</param>
public sealed record ChangePoint(int Index, string FromCommit, string ToCommit, DateTimeOffset At, double ChangePercent,
    double LowPercent, double HighPercent, double PValue, Verdict Verdict, bool IsNew);

/// <summary>A series with its change points and each segment's mean (the level between change points).</summary>
public sealed record SeriesAnalysis(SeriesKey Key, bool HigherIsBetter, string Unit, IReadOnlyList<SeriesPoint> Points,
    IReadOnlyList<ChangePoint> ChangePoints, IReadOnlyList<(int Start, int End, double Mean)> Segments);

/// <summary>Turns stored points into series and finds their change points (E-Divisive means, noise-aware).</summary>
public static class HistorySeries
{
    /// <summary>The word that mixes machines in one series.</summary>
    public const string AnyMachine = "any";

    /// <param name="machine">Null: one series per machine; "any": machines mixed; else only machines whose name contains it.</param>
    public static IReadOnlyList<SeriesAnalysis> Analyze(IReadOnlyList<StoredPoint> stored, string? machine, EDivisive.Options options)
    {
        var mixed = string.Equals(machine, AnyMachine, StringComparison.OrdinalIgnoreCase);
        return [.. stored
            .Where(s => machine is null || mixed || s.Run.Machine.Contains(machine, StringComparison.OrdinalIgnoreCase))
            .GroupBy(s => new SeriesKey(s.Point.Experiment, s.Point.Variant, s.Point.Scenario, s.Point.Metric,
                mixed ? AnyMachine : s.Run.Machine))
            .OrderBy(g => g.Key.Experiment, StringComparer.Ordinal).ThenBy(g => g.Key.Variant, StringComparer.Ordinal)
            .ThenBy(g => g.Key.Metric, StringComparer.Ordinal).ThenBy(g => g.Key.Scenario, StringComparer.Ordinal)
            .ThenBy(g => g.Key.Machine, StringComparer.Ordinal)
            .Select(g => Analyze(g.Key, [.. g], options))];
    }

    public static SeriesAnalysis Analyze(SeriesKey key, IReadOnlyList<StoredPoint> points, EDivisive.Options options)
    {
        var metric = Metrics.Find(key.Metric);
        var higherIsBetter = metric?.HigherIsBetter ?? false;
        var vetoed = new List<double>();
        var splits = Find(points, higherIsBetter, options, vetoed);
        var earlier = points.Count > 1 ? Find(points.Take(points.Count - 1).ToList(), higherIsBetter, options, []) : [];
        var bounds = splits.Select(s => s.Index).Prepend(0).Append(points.Count).ToList();
        var values = points.Select(p => p.Point.Median).ToList();
        var changes = splits.Select((s, i) =>
        {
            var (change, low, high, _) = Size(values, bounds[i], s.Index, bounds[i + 2], higherIsBetter);
            var worse = change > 0 != higherIsBetter;
            return new ChangePoint(s.Index, points[s.Index - 1].Run.Commit, points[s.Index].Run.Commit, points[s.Index].Run.StartedAt,
                change, low, high, s.PValue, worse ? Verdict.Worse : Verdict.Better,
                IsNew: earlier.All(e => e.Index != s.Index));
        }).ToList();
        // Hollow against the series' change: the smallest change point's size, or without one the largest step the noise
        // vetoed. With neither there is no change to be noisier than.
        var reference = changes.Count > 0 ? changes.Min(c => Math.Abs(c.ChangePercent))
            : vetoed.Count > 0 ? vetoed.Max()
            : double.PositiveInfinity;
        var seriesPoints = points.Select(p => new SeriesPoint(p.Run, p.Point, p.Point.NoiseFloorPercent > reference)).ToList();
        var segments = bounds.Zip(bounds.Skip(1), (a, b) => (a, b, values.Skip(a).Take(b - a).Average())).ToList();
        return new SeriesAnalysis(key, higherIsBetter, metric?.Unit ?? "", seriesPoints, changes, segments);
    }

    /// <summary>
    /// E-Divisive's splits, each vetoed unless the points whose stated noise floor is below the step (the solid ones)
    /// show it on their own: at least two on each side and a permutation test of that split among them alone.
    /// </summary>
    /// <param name="vetoed">Receives the size of each split the noise vetoed.</param>
    private static IReadOnlyList<EDivisive.Split> Find(IReadOnlyList<StoredPoint> points, bool higherIsBetter, EDivisive.Options options,
        List<double> vetoed)
    {
        var values = points.Select(p => p.Point.Median).ToList();
        return EDivisive.Find(values, options, (start, split, end) =>
        {
            var step = Math.Abs(Size(values, start, split, end, higherIsBetter).Change);
            bool Solid(int i) => !(points[i].Point.NoiseFloorPercent > step);
            var left = Enumerable.Range(start, split - start).Where(Solid).Select(i => values[i]).ToList();
            var right = Enumerable.Range(split, end - split).Where(Solid).Select(i => values[i]).ToList();
            if (left.Count == split - start && right.Count == end - split)
            {
                return true;
            }
            var stands = left.Count >= 2 && right.Count >= 2
                && EDivisive.PValueAt([.. left, .. right], left.Count, options) <= options.Alpha;
            if (!stands)
            {
                vetoed.Add(step);
            }
            return stands;
        });
    }

    /// <summary>The step between x[start..split) and x[split..end) in percent, with its 95 % interval.</summary>
    private static (double Change, double Low, double High, Verdict Verdict) Size(IReadOnlyList<double> x, int start, int split, int end,
        bool higherIsBetter) =>
        Statistics.Compare([.. x.Skip(start).Take(split - start)], [.. x.Skip(split).Take(end - split)], higherIsBetter, 0);
}
