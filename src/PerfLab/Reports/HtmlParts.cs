using System.Net;
using System.Text;

namespace PerfLab.Reports;

// What every part of report.html is made of: escaped text and the tables both writers share.
internal static class HtmlParts
{
    public static string H(string text) => WebUtility.HtmlEncode(text);

    public static void Table(StringBuilder html, ReportTable table, string cssClass, bool headerless = false)
    {
        html.Append($"<table class=\"{cssClass}\">\n");
        if (!headerless)
        {
            html.Append("<thead><tr>");
            foreach (var column in table.Columns)
            {
                html.Append(column.Align == Align.Right ? "<th class=\"num\">" : "<th>").Append(H(column.Header)).Append("</th>");
            }
            html.Append("</tr></thead>\n");
        }
        html.Append("<tbody>\n");
        foreach (var row in table.Rows)
        {
            html.Append("<tr>");
            for (var i = 0; i < row.Count; i++)
            {
                var right = i < table.Columns.Count && table.Columns[i].Align == Align.Right;
                var text = H(row[i].Text);
                if (row[i].Code)
                {
                    text = $"<code>{text}</code>";
                }
                if (row[i].Link is { } link)
                {
                    text = $"<a href=\"{H(link)}\">{text}</a>";
                }
                if (row[i].Strong)
                {
                    text = $"<strong>{text}</strong>";
                }
                html.Append(right ? "<td class=\"num\">" : "<td>").Append(text).Append("</td>");
            }
            html.Append("</tr>\n");
        }
        html.Append("</tbody>\n</table>\n");
    }
}
