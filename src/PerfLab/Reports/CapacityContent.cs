using System.Globalization;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// What a report says about an experiment whose runs searched their capacity, independent of Markdown or HTML: the
/// verdict of each variant's capacity against the baseline's, each variant's capacity over its runs, every run's
/// answer, and the latency-against-rate curve (the "hockey stick") per variant with the SLO bound and the point found.
/// </summary>
internal static class CapacityContent
{
    /// <summary>Points above this many times the SLO bound are drawn at it, so the bound and the knee stay readable.</summary>
    public const double ChartCapOfSlo = 4;

    public static bool HasCapacity(ExperimentResult experiment) => experiment.Runs.Any(r => r.Capacity is not null);

    /// <summary>The file name of an experiment's curve beside report.md: "capacity-sync-async-capacity.svg".</summary>
    public static string ChartFile(ExperimentResult experiment) => $"capacity-{ReportContent.Anchor(experiment)}.svg";

    public static string Intro(ExperimentResult experiment)
    {
        var first = experiment.Runs.First(r => r.Capacity is not null).Capacity!;
        return Invariant(
            $"Each run searched its variant's capacity within {first.Slo}: open-model steps of {first.StepSeconds:0.##} s ") +
            Invariant($"(after {first.WarmupSeconds:0.##} s of warm-up each, latency from the intended send time), the rate doubling ") +
            "until a step broke the SLO, then bisection. A step holds when its latency and errors are within the SLO, its latency " +
            "did not climb within the step (a growing queue) and the generator kept up. The capacity is the highest rate that held, " +
            "as sent and completed; the boundary is tried again, back to back, and each run's interval runs from the highest rate " +
            "that held every time to the lowest that broke every time right after it (open above when those breaks came on a busy " +
            "machine); " +
            "the variants' capacities are compared block by block (paired), with a 95 % interval.";
    }

    /// <summary>
    /// "async sustains 38.0 % more RPS than sync within p99&lt;100ms, errors&lt;1% [+31.0, +45.0]: better", and when a
    /// search of either variant did not bracket its capacity, which figures are only lower bounds.
    /// </summary>
    public static IReadOnlyList<(string Text, Verdict Verdict)> Verdicts(ExperimentResult experiment)
    {
        var slo = experiment.Runs.First(r => r.Capacity is not null).Capacity!.Slo;
        return [.. experiment.Comparisons
            .Where(c => c.Metric == Metrics.CapacityRps && double.IsFinite(c.ChangePercent))
            .Select(c => ($"{c.Variant} {Metrics.CapacityRps.Describe(c.ChangePercent, experiment.Baseline)} within {slo} " +
                (double.IsFinite(c.LowPercent) ? $"[{Fmt.Signed(c.LowPercent)}, {Fmt.Signed(c.HighPercent)}]" : "(no interval)") +
                $": {Fmt.Verdict(c.Verdict)}" + LowerBounds(experiment, [experiment.Baseline, c.Variant]), c.Verdict))];
    }

    /// <summary>"; lower bounds only: cached (generator-limited ×3)", or nothing when every search bracketed its capacity.</summary>
    private static string LowerBounds(ExperimentResult experiment, IEnumerable<string> variants)
    {
        var open = variants.Select(v => (Variant: v, Open: CapacitySearches.Of(experiment, v)
                .Where(c => c.Outcome is CapacityOutcome.GeneratorLimit or CapacityOutcome.AboveMax).ToList()))
            .Where(v => v.Open.Count > 0)
            .Select(v =>
                $"{v.Variant} ({string.Join(", ", v.Open.GroupBy(c => c.Outcome).Select(g => $"{Outcome(g.Key)} ×{g.Count()}"))})")
            .ToList();
        return open.Count == 0 ? "" : "; lower bounds only: " + string.Join(", ", open);
    }

    /// <summary>One row per variant: its capacity's median and 95 % interval over its runs, and each run's answer.</summary>
    public static ReportTable Variants(ExperimentResult experiment) => new(
        [new("variant", Align.Left), new("capacity (RPS)"), new("runs"), new("each run (RPS)", Align.Left), new("outcomes", Align.Left)],
        [
            .. experiment.Variants.Select(variant =>
            {
                var searches = CapacitySearches.Of(experiment, variant);
                return (IReadOnlyList<Cell>)[variant, Fmt.Est(CapacitySearches.Estimate(searches), 1), Fmt.Int(searches.Count),
                    string.Join(", ", searches.Select(c => Fmt.Num(c.CapacityRps ?? double.NaN, 1))),
                    string.Join(", ", searches.GroupBy(c => c.Outcome).Select(g => $"{Outcome(g.Key)} ×{g.Count()}"))];
            }),
        ]);

    /// <summary>
    /// One row per run: its block, the capacity and its interval, where it broke, the bracket, the steps and the answer in
    /// words.
    /// </summary>
    public static ReportTable Runs(ExperimentResult experiment) => new(
        [
            new("variant", Align.Left), new("block"), new("capacity (RPS)"), new("interval", Align.Left), new("breaks at"),
            new("bracket"), new("steps"),
            new("answer", Align.Left),
        ],
        [
            .. experiment.Runs.Where(r => r.Capacity is not null).OrderBy(r => r.Order).Select(r => (IReadOnlyList<Cell>)[
                r.Variant, Fmt.Int(r.Repetition), Fmt.Num(r.Capacity!.CapacityRps ?? double.NaN, 1),
                r.Capacity.CapacityLowRps is { } low ? CapacityResult.IntervalText(low, r.Capacity.CapacityHighRps) : Fmt.Missing,
                Fmt.Num(r.Capacity.BreaksAtRps ?? double.NaN, 1), r.Capacity.BracketPercent is { } b ? Fmt.Num(b, 1) + " %" : Fmt.Missing,
                Fmt.Int(r.Capacity.Steps.Count), r.Capacity.Summary]),
        ]);

    /// <summary>
    /// The SLO latency of every step against the rate it sent, per variant: the run whose capacity is its median as a
    /// line, the other runs' steps as dots, each capacity found as a large dot; the SLO bound dashed.
    /// </summary>
    public static string Chart(ExperimentResult experiment)
    {
        var first = experiment.Runs.First(r => r.Capacity is not null).Capacity!;
        var cap = ChartCapOfSlo * first.LatencyLimitMs;
        var series = new List<PlotSeries>();
        for (var v = 0; v < experiment.Variants.Count; v++)
        {
            var variant = experiment.Variants[v];
            var searches = CapacitySearches.Of(experiment, variant);
            if (searches.Count == 0)
            {
                continue;
            }
            var median = CapacitySearches.Median(searches);
            series.Add(new PlotSeries(variant, Points(median, cap), Line: true, Dots: true, Colour: v));
            var others = searches.Where(c => !ReferenceEquals(c, median)).SelectMany(c => Points(c, cap)).ToList();
            if (others.Count > 0)
            {
                series.Add(new PlotSeries(variant + " (other runs)", others, Line: false, Dots: true, Colour: v));
            }
            var found = searches.Select(c => c.StepAtCapacity()).OfType<CapacityStep>()
                .Select(s => (s.SentRps, Math.Min(s.LatencyMs, cap), Invariant($"{variant}: capacity {s.AchievedRps:0.#} RPS")))
                .ToList();
            series.Add(new PlotSeries(variant + ": capacity", found, Line: false, Dots: true, Colour: v) { Radius = 7 });
        }
        return SvgPlot.Render("capacity", $"{first.LatencyMetric} latency against request rate per variant, with the SLO bound",
            "requests per second sent", Invariant($"{first.LatencyMetric} (ms, capped at {cap:0})"), series,
            [new PlotLine(first.LatencyLimitMs, Invariant($"SLO {first.LatencyLimitMs:0.#} ms"))]);
    }

    /// <summary>The chart as a file of its own (an SVG document needs its namespace, which inline SVG in HTML does not).</summary>
    public static string ChartDocument(ExperimentResult experiment) =>
        Chart(experiment).Replace("<svg class=", "<svg xmlns=\"http://www.w3.org/2000/svg\" class=", StringComparison.Ordinal);

    private static IEnumerable<CapacityStep> Steps(CapacityResult search) => search.Steps.Where(s => double.IsFinite(s.LatencyMs));

    private static List<(double X, double Y, string Tip)> Points(CapacityResult search, double cap) =>
        [.. Steps(search).OrderBy(s => s.SentRps).Select(s => (s.SentRps, Math.Min(s.LatencyMs, cap),
            Invariant($"step {s.Index}: sent {s.SentRps:0.#} RPS, {search.LatencyMetric} {s.LatencyMs:0.#} ms, ")
                + (s.Holds ? "holds" : "breaks")))];

    private static string Outcome(CapacityOutcome outcome) => outcome switch
    {
        CapacityOutcome.Found => "found",
        CapacityOutcome.AboveMax => "at least max",
        CapacityOutcome.BelowFrom => "below from",
        CapacityOutcome.GeneratorLimit => "generator-limited",
        _ => "incomplete",
    };

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
