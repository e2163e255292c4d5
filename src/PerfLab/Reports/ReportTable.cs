namespace PerfLab.Reports;

// The tables both the Markdown and the HTML writer show, built once so the two can never disagree.

internal enum Align { Left, Right }

/// <param name="Link">A fragment of the same report ("#blocking-sleep-vs-delay") the cell's text links to.</param>
internal sealed record Cell(string Text, bool Strong = false, bool Code = false, string? Link = null)
{
    public static implicit operator Cell(string text) => new(text);
}

internal sealed record Column(string Header, Align Align = Align.Right);

internal sealed record ReportTable(IReadOnlyList<Column> Columns, IReadOnlyList<IReadOnlyList<Cell>> Rows);
