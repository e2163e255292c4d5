using System.Text.RegularExpressions;

namespace PerfLab.Reports;

// What report.md is made of: lines, tables, fenced blocks and text made safe for a table cell.

internal sealed class MarkdownBuilder(TextWriter output)
{
    public void Line(string text = "") => output.Write(text + "\n");

    public void Table(ReportTable table, bool headerless = false)
    {
        var headers = headerless ? table.Columns.Select(_ => " ") : table.Columns.Select(c => Md.Inline(c.Header));
        Line("| " + string.Join(" | ", headers) + " |");
        Line("|" + string.Join("|", table.Columns.Select(c => c.Align == Align.Right ? "---:" : "---")) + "|");
        foreach (var row in table.Rows)
        {
            Line("| " + string.Join(" | ", row.Select(Md.Cell)) + " |");
        }
    }

    public void CodeBlock(string text)
    {
        // A fence longer than any backtick run inside the log keeps the block closed where we mean it to be.
        var longest = 0;
        var run = 0;
        foreach (var c in text)
        {
            run = c == '`' ? run + 1 : 0;
            longest = Math.Max(longest, run);
        }
        var fence = new string('`', Math.Max(3, longest + 1));
        Line("  " + fence + "text");
        foreach (var line in text.ReplaceLineEndings("\n").TrimEnd('\n').Split('\n'))
        {
            Line("  " + line);
        }
        Line("  " + fence);
    }
}

internal static partial class Md
{
    /// <summary>Text inside a table cell or a line: one line, pipes escaped, nothing a renderer would take for an HTML tag.</summary>
    public static string Inline(string text) =>
        TagStart().Replace(text.ReplaceLineEndings(" ").Replace("|", "\\|", StringComparison.Ordinal).Trim(), "&lt;");

    [GeneratedRegex("<(?=[A-Za-z/!?])")]
    private static partial Regex TagStart();

    public static string Cell(Cell cell)
    {
        if (cell.Text.Length == 0)
        {
            return "";
        }
        var text = cell.Code ? $"`{Inline(cell.Text).Replace("`", "'", StringComparison.Ordinal)}`" : Inline(cell.Text);
        text = cell.Link is { } link ? $"[{text}]({link})" : text;
        return cell.Strong ? $"**{text}**" : text;
    }
}
