using System.Globalization;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>One chart as an SVG file beside report.md: its path relative to the result folder, what it shows, the image.</summary>
internal sealed record ChartFile(string RelativePath, string Alt, string Svg);

/// <summary>
/// report.md's charts, written as standalone SVG files in <c>charts/</c> beside it so that the Markdown reads on a code
/// host without report.html: per experiment the change with its interval per variant (a forest plot) and the timeline
/// (RPS each second of one run per variant), per sweep its curve. Drawn from the same chart model report.html is drawn
/// from; report.html shows the same forest plot inline.
/// </summary>
internal static class ChartFiles
{
    public const string Folder = "charts";

    /// <summary>Every chart of a run, in report order.</summary>
    public static IReadOnlyList<ChartFile> Of(RunResults results) =>
    [
        .. results.Experiments.SelectMany(e => new[] { Change(e), Timeline(e) }).OfType<ChartFile>(),
        .. (results.Sweeps ?? []).Select(Sweep),
    ];

    /// <summary>The summary's lines of an experiment as a forest plot; null when there is no change to draw.</summary>
    public static ChartFile? Change(ExperimentResult experiment) => ChartModel.Change(experiment) is { } chart
        ? new ChartFile($"{Folder}/{ReportContent.Anchor(experiment)}-change.svg", chart.Title, SvgForest.Render(chart))
        : null;

    /// <summary>RPS each second of the median run of each variant; null when no run kept a timeline.</summary>
    public static ChartFile? Timeline(ExperimentResult experiment)
    {
        if (ChartModel.Timelines(experiment) is not { } timelines)
        {
            return null;
        }
        var series = timelines.Series.Select(s => new PlotSeries(s.Variant, [.. s.Second.Zip(s.Rps)
            .Where(p => p.Second is not null)
            .Select(p => ((double)p.First, p.Second!.Value, Invariant($"{s.Variant}, second {p.First}: {p.Second:0.#} RPS")))],
            Line: true, Dots: false)).ToList();
        var alt = $"{experiment.Name}: RPS each second of the measured window. {timelines.Note}";
        return new ChartFile($"{Folder}/{ReportContent.Anchor(experiment)}-timeline.svg", alt,
            SvgPlot.Render("timeline", alt, "seconds into the measured window", "RPS", series));
    }

    /// <summary>Each variant's change along the sweep's values, with its 95 % interval as a whisker at each value.</summary>
    public static ChartFile Sweep(SweepResult sweep)
    {
        var chart = ChartModel.Sweep(sweep);
        var series = chart.Series.Select(s =>
        {
            var at = Enumerable.Range(0, chart.Values.Count).Where(i => i < s.Change.Count && s.Change[i] is not null).ToList();
            return new PlotSeries(s.Variant,
                [.. at.Select(i => (chart.Values[i], s.Change[i]!.Value,
                    $"{chart.Labels[i]}: {Fmt.Change(s.Change[i]!.Value, s.Low[i] ?? double.NaN, s.High[i] ?? double.NaN)} " +
                    s.Verdict[i]))],
                Line: true, Dots: true,
                Intervals: [.. at.Select(i => s.Low[i] is { } low && s.High[i] is { } high ? (low, high) : ((double, double)?)null)]);
        }).ToList();
        var alt = $"{SweepContent.Heading(sweep)}: change of {chart.Metric} against {sweep.Baseline} along {chart.Axis}, " +
                  "with 95 % intervals";
        return new ChartFile($"{Folder}/{chart.Id}.svg", alt,
            SvgPlot.Render("sweep", alt, chart.Axis, $"change of {chart.Metric} (%)", series, xTicks: [.. chart.Values.Zip(chart.Labels)]));
    }

    /// <summary>The Markdown image of a chart: "![what it shows](charts/x.svg)".</summary>
    public static string Image(ChartFile chart) => $"![{Md.Inline(chart.Alt).Replace('[', '(').Replace(']', ')')}]({chart.RelativePath})";

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
