using PerfLab.Results;

namespace PerfLab.Reports;

// What a report says about a sweep, independent of Markdown or HTML: the introduction, each variant's change per
// value of the condition, and where each variant's change is first decided better (the crossover).
internal static class SweepContent
{
    public static string Anchor(SweepResult sweep) =>
        "sweep-" + new string(sweep.Experiment.ToLowerInvariant().Select(c => char.IsAsciiLetterOrDigit(c) ? c : '-').ToArray());

    public static string Heading(SweepResult sweep) => $"Sweep {sweep.Experiment}: {sweep.Title}";

    public static string Intro(SweepResult sweep) =>
        $"Each value of {ConditionNames.Name(sweep.Condition)} " +
        $"({string.Join(", ", sweep.Values.Select(v => ConditionNames.Value(sweep.Condition, v)))}) " +
        $"ran as an experiment of its own, in the same interleaved blocks with the same stopping rule; " +
        $"the figures are each variant's change of " +
        $"{Fmt.Metric(sweep.Metric)} (all scenarios) against `{sweep.Baseline}` at that value, with its 95 % interval and verdict. " +
        "The crossover is the first value where the change is decided better: " +
        "the interval excludes zero and the change clears the noise floor.";

    /// <summary>One row per value: the value, the point's experiment, then each variant's change with its interval and verdict.</summary>
    public static ReportTable Changes(SweepResult sweep)
    {
        var columns = new List<Column> { new(ConditionNames.Name(sweep.Condition)), new("point", Align.Left) };
        columns.AddRange(sweep.Variants.Select(v => new Column($"{v.Variant} vs {sweep.Baseline}", Align.Left)));
        var rows = new List<IReadOnlyList<Cell>>();
        for (var i = 0; i < sweep.Values.Count; i++)
        {
            var row = new List<Cell>
            {
                ConditionNames.Value(sweep.Condition, sweep.Values[i]),
                new(sweep.Points[i] ?? "not run", Code: sweep.Points[i] is not null),
            };
            row.AddRange(sweep.Variants.Select(v => i < v.Points.Count ? Change(v.Points[i]) : "no comparison"));
            rows.Add(row);
        }
        return new ReportTable(columns, rows);
    }

    private static Cell Change(SweepPointChange point)
    {
        if (point.ChangePercent is not { } change)
        {
            return "no comparison";
        }
        var text = $"{Fmt.Change(change, point.LowPercent ?? double.NaN, point.HighPercent ?? double.NaN)} {Fmt.Verdict(point.Verdict)}";
        return new Cell(text, Strong: point.Verdict == Verdict.Better);
    }

    /// <summary>Per variant, where it starts to help, in a sentence.</summary>
    public static IReadOnlyList<string> Crossovers(SweepResult sweep) => sweep.Variants.Select(v => Crossover(sweep, v)).ToList();

    public static string Crossover(SweepResult sweep, SweepSeries series)
    {
        string Value(double v) => ConditionNames.Value(sweep.Condition, v);
        var range = $"{Value(sweep.Values[0])} to {Value(sweep.Values[^1])}";
        if (series.Crossover is not { } at)
        {
            var worse = series.Points.Where(p => p.Verdict == Verdict.Worse).Select(p => Value(p.Value)).ToList();
            return $"{series.Variant}: no crossover within the values measured ({range})" +
                   (worse.Count > 0 ? $"; decided worse at {string.Join(", ", worse)}." : ".");
        }
        var first = at == sweep.Values[0]
            ? $"{series.Variant}: decided better already at the lowest value measured, {Value(at)} (the crossover is at or below it)"
            : $"{series.Variant}: crossover at {Value(at)}, the first value where its change is decided better";
        var notAfter = series.Points.Where(p => p.Value > at && p.Verdict != Verdict.Better).Select(p => Value(p.Value)).ToList();
        return first + (notAfter.Count > 0 ? $"; not decided better at {string.Join(", ", notAfter)}." : ".");
    }
}
