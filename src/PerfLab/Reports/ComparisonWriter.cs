using PerfLab.Results;
using Spectre.Console;

namespace PerfLab.Reports;

/// <summary>Renders a <see cref="ResultsComparison"/> as Markdown (files, pipes) or as a Spectre.Console table (terminals).</summary>
public static class ComparisonWriter
{
    public static void WriteMarkdown(ResultsComparison comparison, TextWriter output)
    {
        void Line(string text = "") => output.Write(text + "\n");
        void Table(ReportTable table)
        {
            Line("| " + string.Join(" | ", table.Columns.Select(c => Md.Inline(c.Header))) + " |");
            Line("|" + string.Join("|", table.Columns.Select(c => c.Align == Align.Right ? "---:" : "---")) + "|");
            foreach (var row in table.Rows)
            {
                Line("| " + string.Join(" | ", row.Select(Md.Cell)) + " |");
            }
        }

        Line($"# PerfLab results compared: {Md.Inline(comparison.LabelB)} against {Md.Inline(comparison.LabelA)}");
        Line();
        if (comparison.Thresholds.Count > 0)
        {
            Line($"**{ThresholdSection.Summary(comparison.Thresholds)}.**");
            Line();
            Table(ThresholdSection.Table(comparison.Thresholds));
            Line();
        }
        Table(Provenance(comparison));
        Line();
        Line(ResultsComparison.Method);
        Line();
        if (comparison.Figures.Count == 0)
        {
            Line("The two result folders have no experiment, variant and scenario in common.");
        }
        else
        {
            Table(Figures(comparison));
            Line();
            Line("## Errors");
            Line();
            Table(Errors(comparison));
        }
        Line();
        Lists(comparison, (title, items) =>
        {
            Line($"## {title}");
            Line();
            foreach (var item in items)
            {
                Line($"- {Md.Inline(item)}");
            }
            Line();
        });
    }

    public static void WriteConsole(ResultsComparison comparison, IAnsiConsole console)
    {
        console.Write(new Rule($"[bold]{Markup.Escape(comparison.LabelB)}[/] against [bold]{Markup.Escape(comparison.LabelA)}[/]")
            .LeftJustified());
        console.Write(ToSpectre(Provenance(comparison)));
        if (comparison.Figures.Count == 0)
        {
            console.MarkupLine("The two result folders have no experiment, variant and scenario in common.");
        }
        else
        {
            // One table per experiment keeps the rows narrow enough for a terminal.
            foreach (var experiment in comparison.Figures.Select(f => f.Experiment).Distinct())
            {
                console.Write(ToSpectre(Figures(comparison, experiment), keepFiguresWhole: console.Profile.Width >= 140)
                    .Title($"[bold]{Markup.Escape(experiment)}[/]"));
            }
            console.Write(ToSpectre(Errors(comparison)).Title("[bold]errors[/]"));
        }
        if (comparison.Thresholds.Count > 0)
        {
            console.Write(ToSpectre(ThresholdSection.Table(comparison.Thresholds))
                .Title($"[bold]{Markup.Escape(ThresholdSection.Summary(comparison.Thresholds))}[/]"));
        }
        console.MarkupLine($"[grey]{Markup.Escape(ResultsComparison.Method)}[/]");
        Lists(comparison, (title, items) =>
        {
            console.MarkupLine($"[bold]{Markup.Escape(title)}[/]");
            foreach (var item in items)
            {
                console.MarkupLine($"  - {Markup.Escape(item)}");
            }
        });
    }

    internal static void Lists(ResultsComparison comparison, Action<string, IReadOnlyList<string>> list)
    {
        if (comparison.OnlyInA.Count > 0)
        {
            list($"Only in {comparison.LabelA}", comparison.OnlyInA);
        }
        if (comparison.OnlyInB.Count > 0)
        {
            list($"Only in {comparison.LabelB}", comparison.OnlyInB);
        }
        if (comparison.WithoutData.Count > 0)
        {
            list("In both, but without data on one side", comparison.WithoutData);
        }
    }

    internal static ReportTable Provenance(ResultsComparison c)
    {
        IReadOnlyList<Cell> Row(string label, Func<RunResults, string> value) =>
            [new Cell(label, Strong: true), new Cell(value(c.A)), new Cell(value(c.B))];
        return new ReportTable(
            [new("", Align.Left), new(c.LabelA, Align.Left), new(c.LabelB, Align.Left)],
            [
                Row("started", r => Fmt.Timestamp(r.StartedAt)),
                Row("commit", r => r.Provenance.Commit),
                Row("profile", r => $"{r.Provenance.Profile}, {Fmt.Int(r.Provenance.Repetitions)} repetitions"),
                Row("SDK / runtime", r => $"{r.Provenance.SdkVersion} / {r.Provenance.RuntimeVersion}"),
                Row("CPU", r => $"{r.Provenance.CpuModel}, {Fmt.Int(r.Provenance.LogicalCores)} logical cores"),
                Row("database", r => r.Provenance.Database),
                Row("complete", r => r.Incomplete ? "no: " + (r.IncompleteReason ?? "stopped early") : "yes"),
            ]);
    }

    /// <summary>Errors and error rate per experiment, variant and scenario: successful runs only, all their requests.</summary>
    internal static ReportTable Errors(ResultsComparison c)
    {
        static string Rate(long errors, long requests, double rate) =>
            requests == 0 ? Fmt.Missing : $"{Fmt.Int(errors)} of {Fmt.Int(requests)} ({Fmt.Num(rate, 2)} %)";
        return new ReportTable(
            [new("experiment", Align.Left), new("variant", Align.Left), new("scenario", Align.Left), new($"errors {c.LabelA}"),
                new($"errors {c.LabelB}")],
            [.. c.Errors.Select(e => (IReadOnlyList<Cell>)
                [new Cell(e.Experiment), new Cell(e.Variant), new Cell(e.Scenario), new Cell(Rate(e.ErrorsA, e.RequestsA, e.RateA)),
                 new Cell(Rate(e.ErrorsB, e.RequestsB, e.RateB), Strong: e.ErrorsB > e.ErrorsA)])]);
    }

    internal static ReportTable Figures(ResultsComparison c, string? experiment = null)
    {
        var rows = c.Figures.Where(f => experiment is null || f.Experiment == experiment).Select(f =>
        {
            var decimals = f.Metric.Decimals;
            return (IReadOnlyList<Cell>)
            [
                .. experiment is null ? [new Cell(f.Experiment)] : Array.Empty<Cell>(),
                new Cell(f.Variant),
                new Cell(f.Scenario),
                new Cell(Fmt.Metric(f.Metric)),
                new Cell(Fmt.Est(f.A, decimals)),
                new Cell(Fmt.Est(f.B, decimals)),
                new Cell(double.IsFinite(f.LowPercent)
                    ? Fmt.Change(f.ChangePercent, f.LowPercent, f.HighPercent)
                    : double.IsFinite(f.ChangePercent) ? $"{Fmt.Signed(f.ChangePercent)} %" : Fmt.Missing),
                new Cell(f.NoiseFloorPercent is { } floor ? "±" + Fmt.Num(floor, 1) + " %" : Fmt.Missing),
                new Cell(Fmt.Verdict(f.Verdict), Strong: f.Verdict is Verdict.Better or Verdict.Worse),
            ];
        }).ToList();
        return new ReportTable(
            [.. experiment is null ? [new Column("experiment", Align.Left)] : Array.Empty<Column>(), new("variant", Align.Left),
                new("scenario", Align.Left), new("metric", Align.Left),
             new(c.LabelA), new(c.LabelB), new($"change {c.LabelB} vs {c.LabelA}"), new("noise floor"), new("verdict", Align.Left)],
            rows);
    }

    private static Table ToSpectre(ReportTable table, bool keepFiguresWhole = false)
    {
        var spectre = new Table().Border(TableBorder.Rounded);
        foreach (var column in table.Columns)
        {
            var c = new TableColumn(Markup.Escape(column.Header));
            // On a wide terminal figures stay on one line and the names around them wrap; a narrow one wraps both.
            spectre.AddColumn(column.Align == Align.Right ? (keepFiguresWhole ? c.RightAligned().NoWrap() : c.RightAligned()) : c);
        }
        foreach (var row in table.Rows)
        {
            spectre.AddRow(row.Select(cell =>
            {
                var text = Markup.Escape(cell.Text);
                if (cell.Strong)
                {
                    text = cell.Text switch
                    {
                        "better" => $"[bold green]{text}[/]",
                        "worse" => $"[bold red]{text}[/]",
                        _ => $"[bold]{text}[/]",
                    };
                }
                return (Spectre.Console.Rendering.IRenderable)new Markup(text);
            }));
        }
        return spectre;
    }
}
