using System.Text;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>One row of a summary table: "db-wait | async vs sync (RPS) | 22.4× [6.4×, 78.2×] | better".</summary>
/// <param name="Verdict">Null when there is nothing to compare (the change is then "—" and the note says why).</param>
internal sealed record SummaryRow(string Experiment, string What, string Change, Verdict? Verdict)
{
    /// <summary>The verdict's word, or why there is none.</summary>
    public string VerdictText => Verdict is { } v ? Fmt.Verdict(v) : "no comparison";
}

/// <summary>
/// The first screen of every summary (report.md, report.html, the console, CI's step summary), built once: a table of
/// one row per variant against its baseline on the deciding figure, then a table of every *better* or *worse* its row
/// would hide (a single scenario's, or a figure's beside the deciding one, that differs from the row's verdict), then
/// the notes (the figures beside, what would decide, the sweeps' crossovers). Every line fits in <see cref="Width"/>
/// characters: a lead reads it in a minute, without scrolling sideways.
/// </summary>
internal static class SummaryTable
{
    public const int Width = 120;

    public const string HiddenTitle =
        "Better or worse verdicts the rows above would hide (a single scenario, or a figure beside the deciding one):";

    public static readonly string[] Headers = ["experiment", "variant vs baseline (deciding figure)", "change [95 % CI]", "verdict"];

    public static readonly string[] HiddenHeaders = ["experiment", "scenario: variant vs baseline (figure)", "change [95 % CI]", "verdict"];

    /// <summary>One row per variant besides its baseline; a sweep's crossover is a note, not a row.</summary>
    public static IReadOnlyList<SummaryRow> Rows(IReadOnlyList<SummaryLine> lines) =>
        [.. lines.Where(l => l.Variant is not null).Select(l => l.Deciding is { } c
            ? new SummaryRow(l.Experiment, What(c.Variant, l.Baseline, c.Metric),
                Fmt.Headline(c.ChangePercent, c.LowPercent, c.HighPercent), c.Verdict)
            : new SummaryRow(l.Experiment, $"{l.Variant} vs {l.Baseline}", Fmt.Missing, null))];

    /// <summary>
    /// Every better or worse the row's verdict does not say: of a single scenario (throughput, latency, batch time, and
    /// the figures beside the deciding one), or of a figure beside it over all scenarios. The default run's sync-async
    /// row once read inconclusive over a worse order scenario, and the summary showed 1 of results.json's 12 worse.
    /// </summary>
    public static IReadOnlyList<SummaryRow> Hidden(RunResults results) =>
        [.. HiddenComparisons(results).Select(h => new SummaryRow(h.Experiment,
            (h.Comparison.Scenario == Metric.AllScenarios ? "all scenarios" : h.Comparison.Scenario) + ": "
                + What(h.Comparison.Variant, h.Baseline, h.Comparison.Metric),
            Fmt.Headline(h.Comparison.ChangePercent, h.Comparison.LowPercent, h.Comparison.HighPercent), h.Comparison.Verdict))];

    /// <summary>The comparisons behind the hidden rows, for CI's summary.</summary>
    public static IEnumerable<(string Experiment, string Baseline, Comparison Comparison)> HiddenComparisons(RunResults results) =>
        results.Experiments.SelectMany(e => SummaryContent.Lines(e).Where(l => l.Deciding is not null)
            .SelectMany(l => Hidden(e, l).Select(c => (e.Name, l.Baseline, c))));

    private static IEnumerable<Comparison> Hidden(ExperimentResult experiment, SummaryLine line)
    {
        var deciding = line.Deciding!;
        // The row's figures first (the deciding one, those beside it), then throughput, latency and batch time as the
        // catalog orders them; counters are evidence, not verdicts a lead acts on.
        var shown = line.Beside.Select(c => c.Metric).Prepend(deciding.Metric).ToList();
        var catalog = Metrics.All.ToList();
        int Rank(Metric metric) => shown.IndexOf(metric) is >= 0 and var i ? i : shown.Count + catalog.IndexOf(metric);
        return experiment.Comparisons
            .Where(c => c.Variant == deciding.Variant && c.Verdict is Verdict.Better or Verdict.Worse && c.Verdict != line.Verdict
                && (shown.Contains(c.Metric) || c.Metric.Role is MetricRole.Compared or MetricRole.Batch)
                && !(c.Scenario == Metric.AllScenarios && c.Metric == deciding.Metric))
            .OrderBy(c => c.Scenario == Metric.AllScenarios ? -1 : experiment.Scenarios.ToList().IndexOf(c.Scenario))
            .ThenBy(c => Rank(c.Metric));
    }

    /// <summary>"async vs sync (RPS)"; "order: async vs sync (RPS)" for a single scenario.</summary>
    public static string What(string variant, string baseline, Metric metric, string scenario) =>
        (scenario == Metric.AllScenarios ? "" : scenario + ": ") + What(variant, baseline, metric);

    private static string What(string variant, string baseline, Metric metric) =>
        $"{variant} vs {baseline} ({metric.ShortName ?? metric.Name})";

    /// <summary>
    /// What a row leaves out, one note per line that has any: "gc server: beside: RPS -1.9 % [-19.8, +20.1]; to decide:
    /// about 27 blocks in all (24 more)"; a sweep's crossover as it is.
    /// </summary>
    public static IReadOnlyList<string> Notes(IReadOnlyList<SummaryLine> lines) =>
        [.. lines.Select(Note).OfType<string>()];

    private static string? Note(SummaryLine line)
    {
        if (line.Variant is null)
        {
            return $"{line.Experiment}: {line.Text}";
        }
        if (line.Deciding is null)
        {
            return $"{line.Experiment} {line.Text}";
        }
        string?[] parts =
        [
            double.IsFinite(line.Deciding.ChangePercent) ? null : SummaryContent.NoFigure, line.Fallback,
            SummaryContent.BesideText(line) is { } b ? $"beside: {b}" : null, InvocationsContent.Text(line.Deciding),
            line.ToDecide is { } d ? $"to decide: {d}" : null,
        ];
        var text = string.Join("; ", parts.OfType<string>());
        // An experiment of one variant named as itself (`compare`'s "pr") is named once: "pr: beside", not "pr pr".
        var who = line.Variant == line.Experiment ? line.Experiment : $"{line.Experiment} {line.Variant}";
        return text.Length == 0 ? null : $"{who}: {text}";
    }

    /// <summary>Words filled into lines of at most <paramref name="width"/> characters, the first after
    /// <paramref name="first"/>, the others after <paramref name="rest"/>; a word longer than a line gets one alone.</summary>
    public static IEnumerable<string> Wrap(string text, string first = "", string rest = "", int width = Width)
    {
        var line = new StringBuilder(first);
        var empty = true;
        // A unit stays with its number: "48 %" never breaks into "48" and "% of the time".
        var words = new List<string>();
        foreach (var token in text.Split(' ', StringSplitOptions.RemoveEmptyEntries))
        {
            if (token.StartsWith('%') && words.Count > 0)
            {
                words[^1] += " " + token;
            }
            else
            {
                words.Add(token);
            }
        }
        foreach (var word in words)
        {
            if (!empty && line.Length + 1 + word.Length > width)
            {
                yield return line.ToString();
                line.Clear().Append(rest);
                empty = true;
            }
            line.Append(empty ? "" : " ").Append(word);
            empty = false;
        }
        yield return line.ToString();
    }

    /// <summary>The tables as aligned plain text, for the terminal at the end of a run.</summary>
    public static void WriteText(TextWriter output, RunResults results)
    {
        var lines = SummaryContent.Lines(results);
        var rows = Rows(lines);
        if (rows.Count > 0)
        {
            WriteColumns(output, Headers, rows);
        }
        var hidden = Hidden(results);
        if (hidden.Count > 0)
        {
            output.WriteLine();
            foreach (var text in Wrap(HiddenTitle))
            {
                output.WriteLine(text);
            }
            WriteColumns(output, HiddenHeaders, hidden);
        }
        foreach (var note in Notes(lines))
        {
            foreach (var text in Wrap(note, "- ", "  "))
            {
                output.WriteLine(text);
            }
        }
    }

    private static void WriteColumns(TextWriter output, string[] headers, IReadOnlyList<SummaryRow> rows)
    {
        var cells = rows.Select(r => new[] { r.Experiment, r.What, r.Change, r.VerdictText }).Prepend(headers).ToList();
        var widths = Enumerable.Range(0, headers.Length).Select(i => cells.Max(c => c[i].Length)).ToArray();
        foreach (var row in cells)
        {
            // The change is right-aligned, as in the Markdown table, so the signs and decimal points line up.
            var text = $"{row[0].PadRight(widths[0])}  {row[1].PadRight(widths[1])}  {row[2].PadLeft(widths[2])}  {row[3]}";
            output.WriteLine(text.TrimEnd());
        }
    }
}
