using System.Globalization;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>One variant's answer in words and numbers, with its verdict (null: nothing to compare).</summary>
/// <param name="Text">"async serves 6.6 % more requests than sync (95 % CI +3.5 to +9.9 %)".</param>
/// <param name="ToDecide">For an inconclusive verdict, what would decide it.</param>
internal sealed record SummaryLine(string Experiment, string Text, Verdict? Verdict, string? ToDecide);

/// <summary>
/// The answer that opens every report (Markdown, HTML, the terminal at the end of a run): per experiment one line per
/// variant against the baseline, on the figure the experiment is decided on, then the sweeps' crossovers.
/// </summary>
internal static class SummaryContent
{
    public const string Title = "Summary";
    public const string Anchor = "summary";

    public const string Legend =
        "Each variant against its experiment's baseline, on the requests served per second over all scenarios (burst and upload " +
        "experiments: the time per batch): the change with its 95 % interval, then the verdict. Better or worse: the interval " +
        "excludes zero and the change exceeds the noise floor; equivalent: the whole interval lies within ± the noise floor; " +
        "inconclusive: the interval is wider than that, and the line says what would decide it.";

    public static IReadOnlyList<SummaryLine> Lines(RunResults results) =>
        [.. results.Experiments.SelectMany(Lines), .. (results.Sweeps ?? []).SelectMany(SweepLines)];

    private static IEnumerable<SummaryLine> Lines(ExperimentResult experiment)
    {
        foreach (var variant in experiment.Variants.Where(v => v != experiment.Baseline))
        {
            var c = experiment.Comparisons.FirstOrDefault(c =>
                c.Variant == variant && c.Scenario == Metric.AllScenarios && Metrics.IsPrimary(c.Metric));
            yield return c is null
                ? new SummaryLine(experiment.Name, $"{variant}: no comparison with {experiment.Baseline} (a variant has no successful run)", null, null)
                : new SummaryLine(experiment.Name, Sentence(c, experiment.Baseline), c.Verdict, c.ToDecide);
        }
    }

    private static IEnumerable<SummaryLine> SweepLines(SweepResult sweep) =>
        SweepContent.Crossovers(sweep).Select(text => new SummaryLine($"sweep {sweep.Experiment}", text.TrimEnd('.'), null, null));

    /// <summary>"async serves 6.6 % more requests than sync (95 % CI +3.5 to +9.9 %)", from the catalog's words.</summary>
    public static string Sentence(Comparison c, string baseline)
    {
        if (!double.IsFinite(c.ChangePercent))
        {
            return $"{c.Variant} against {baseline}: no figure to compare (a variant completed no requests)";
        }
        var interval = double.IsFinite(c.LowPercent) && double.IsFinite(c.HighPercent)
            ? string.Create(CultureInfo.InvariantCulture, $"95 % CI {c.LowPercent:+0.0;-0.0;0.0} to {c.HighPercent:+0.0;-0.0;0.0} %")
            : "no interval";
        var margin = c.Verdict == Verdict.Equivalent
            ? string.Create(CultureInfo.InvariantCulture, $", within ±{c.NoiseFloorPercent:0.#} %")
            : "";
        return $"{c.Variant} {Metrics.Get(c.Metric).Describe(c.ChangePercent, baseline)} ({interval}{margin})";
    }

    /// <summary>The line as plain text: "serializer: system-text-json serves ... (95 % CI ...): better".</summary>
    public static string Plain(SummaryLine line) =>
        $"{line.Experiment}: {line.Text}" + (line.Verdict is { } v ? $": {Fmt.Verdict(v)}" : "") +
        (line.ToDecide is { } decide ? $"; to decide: {decide}" : "");

    /// <summary>The summary for the terminal at the end of a run: one line per variant.</summary>
    public static void WriteText(TextWriter output, RunResults results)
    {
        foreach (var line in Lines(results))
        {
            output.WriteLine(Plain(line));
        }
    }
}
