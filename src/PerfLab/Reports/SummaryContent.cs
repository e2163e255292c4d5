using System.Globalization;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>One variant's answer in words and numbers, with its verdict (null: nothing to compare).</summary>
/// <param name="Text">"async serves 6.6 % more requests than sync (95 % CI +3.5 to +9.9 %)", on the deciding figure.</param>
/// <param name="ToDecide">For an inconclusive verdict, what would decide it.</param>
internal sealed record SummaryLine(string Experiment, string Text, Verdict? Verdict, string? ToDecide)
{
    /// <summary>The comparison that decides the verdict (the experiment file's <c>decide:</c>); null for a sweep's line.</summary>
    public Comparison? Deciding { get; init; }

    /// <summary>The other headline figures, shown beside the deciding one (RPS beside cost, cost beside RPS).</summary>
    public IReadOnlyList<Comparison> Beside { get; init; } = [];

    /// <summary>Why the deciding figure is not the one the experiment file asked for; null when it is.</summary>
    public string? Fallback { get; init; }

    public string Baseline { get; init; } = "";

    /// <summary>The variant compared against <see cref="Baseline"/>; null for a sweep's line.</summary>
    public string? Variant { get; init; }
}

/// <summary>
/// The answer that opens every report (Markdown, HTML, the terminal at the end of a run, CI's JSON and step summary):
/// per experiment one line per variant against the baseline, led by the figure the experiment is decided on with the
/// other headline figures beside it, then the sweeps' crossovers. Every writer renders these lines; none recomputes them.
/// </summary>
internal static class SummaryContent
{
    public const string Title = "Summary";
    public const string Anchor = "summary";

    /// <summary>Why a comparison has no change to show.</summary>
    public const string NoFigure = "no figure to compare (a variant completed no requests)";

    public const string Legend =
        "Each variant against its experiment's baseline, all scenarios together, on the figure its experiment file decides on " +
        "(decide: rps, cost, i.e. the CPU per request or CPU/req, or latency, i.e. the p99; burst and upload experiments: the time " +
        "per batch): " +
        "the change with its 95 % interval (above +100 % as a ratio: 22.4× is +2140 %), then the verdict. Better or worse: the " +
        "interval excludes zero and the change exceeds the noise floor (this machine's A/A spread); equivalent: the whole interval " +
        "lies within ± the margin (5 % unless stated); inconclusive: neither, and the notes say what would decide it.";

    public static IReadOnlyList<SummaryLine> Lines(RunResults results) =>
        [.. results.Experiments.SelectMany(Lines), .. (results.Sweeps ?? []).SelectMany(SweepLines)];

    /// <summary>One line per variant besides the baseline, on the experiment's deciding figure.</summary>
    public static IEnumerable<SummaryLine> Lines(ExperimentResult experiment)
    {
        var metric = Deciding.Key(experiment);
        var fallback = Deciding.Fallback(experiment, metric);
        foreach (var variant in experiment.Variants.Where(v => v != experiment.Baseline))
        {
            Comparison? Of(Metric m) => experiment.Comparisons.FirstOrDefault(c =>
                c.Variant == variant && c.Scenario == Metric.AllScenarios && c.Metric == m);
            var deciding = Of(metric);
            yield return deciding is null
                ? new SummaryLine(experiment.Name, $"{variant}: no comparison with {experiment.Baseline} (a variant has no successful run)",
                    null, null)
                    { Baseline = experiment.Baseline, Variant = variant }
                : new SummaryLine(experiment.Name, Sentence(deciding, experiment.Baseline), deciding.Verdict, deciding.ToDecide)
                {
                    Deciding = deciding,
                    Beside = [.. Deciding.Beside(metric).Select(Of).OfType<Comparison>().Where(c => double.IsFinite(c.ChangePercent))],
                    Fallback = fallback,
                    Baseline = experiment.Baseline,
                    Variant = variant,
                };
        }
    }

    private static IEnumerable<SummaryLine> SweepLines(SweepResult sweep) =>
        SweepContent.Crossovers(sweep).Select(text => new SummaryLine($"sweep {sweep.Experiment}", text.TrimEnd('.'), null, null));

    /// <summary>"async serves 6.6 % more requests than sync (95 % CI +3.5 to +9.9 %)", from the catalog's words.</summary>
    public static string Sentence(Comparison c, string baseline)
    {
        if (!double.IsFinite(c.ChangePercent))
        {
            return $"{c.Variant} against {baseline}: {NoFigure}";
        }
        var interval = double.IsFinite(c.LowPercent) && double.IsFinite(c.HighPercent)
            ? string.Create(CultureInfo.InvariantCulture, $"95 % CI {c.LowPercent:+0.0;-0.0;0.0} to {c.HighPercent:+0.0;-0.0;0.0} %")
            : "no interval";
        var margin = c.Verdict == Verdict.Equivalent
            ? string.Create(CultureInfo.InvariantCulture, $", within ±{c.EquivalenceMarginPercent ?? c.NoiseFloorPercent:0.#} %")
            : "";
        return $"{c.Variant} {c.Metric.Describe(c.ChangePercent, baseline)} ({interval}{margin})";
    }

    /// <summary>The figures beside the deciding one: "RPS +8.1 % [+2.0, +14.6]"; null when there are none.</summary>
    public static string? BesideText(SummaryLine line) => line.Beside.Count == 0
        ? null
        : string.Join(", ", line.Beside.Select(c =>
            $"{c.Metric.Name} {Fmt.Change(c.ChangePercent, c.LowPercent, c.HighPercent)}"));

    /// <summary>
    /// The line as plain text: "serializer: system-text-json costs ... (95 % CI ...): better; beside: RPS +8.1 % [...]",
    /// with why the deciding figure is another than asked, when so, and what would decide an inconclusive verdict.
    /// </summary>
    public static string Plain(SummaryLine line) =>
        $"{line.Experiment}: {line.Text}" + (line.Verdict is { } v ? $": {Fmt.Verdict(v)}" : "") +
        (line.Fallback is { } fallback ? $" ({fallback})" : "") +
        (BesideText(line) is { } beside ? $"; beside: {beside}" : "") +
        (InvocationsContent.Text(line.Deciding) is { } each ? $"; {each}" : "") +
        (line.ToDecide is { } decide ? $"; to decide: {decide}" : "");

    /// <summary>The summary for the terminal at the end of a run: the tables and notes of <see cref="SummaryTable"/>.</summary>
    public static void WriteText(TextWriter output, RunResults results) => SummaryTable.WriteText(output, results);
}
