using System.Text;
using PerfLab.Results;
using static PerfLab.Reports.HtmlParts;

namespace PerfLab.Reports;

/// <summary>
/// report.html's "Where the time goes" for an experiment with evidence: the breakdown table and its stacked bars, the
/// database client's figures, the call sites that blocked (each stack in a collapsible details element) and the
/// placeholders the page's script fills with flame graphs. Writes nothing for an experiment without evidence.
/// </summary>
internal static class HtmlTimeSection
{
    public const string FlameNote =
        "Flame graphs of each variant's heaviest CPU stacks (root at the bottom; width: share of the samples in those stacks). " +
        "The differential graph is the variant's own, coloured by the change of each frame's share against the baseline: " +
        "red where the variant spends a larger share, blue a smaller one, orange only in the variant; a frame only the " +
        "baseline has does not show. Click a frame to zoom.";

    public static void Write(StringBuilder html, ExperimentResult experiment)
    {
        if (!TimeContent.HasEvidence(experiment))
        {
            return;
        }
        var id = ReportContent.Anchor(experiment);
        html.Append("<h3>Where the time goes</h3>\n");
        Lead(html, experiment);
        html.Append("<p class=\"note\">").Append(H(TimeContent.Note)).Append("</p>\n");
        html.Append("<div class=\"side\">\n");
        Table(html, TimeContent.Breakdown(experiment), "breakdown");
        html.Append($"<div class=\"charts breakdown\" data-experiment=\"{id}\"></div>\n");
        html.Append("</div>\n");
        if (TimeContent.DatabaseClient(experiment) is { } database)
        {
            html.Append("<h4>Database client</h4>\n<p class=\"note\">").Append(H(TimeContent.DatabaseNote)).Append("</p>\n");
            Table(html, database, "database");
        }
        CallSites(html, experiment);
        if (FlameGraphModel.Build(experiment).Count > 0)
        {
            html.Append("<h4>Flame graphs</h4>\n<p class=\"note\">").Append(H(FlameNote)).Append("</p>\n");
            html.Append($"<div class=\"flames\" data-experiment=\"{id}\"></div>\n");
        }
    }

    // The blocking call that costs most per request, its fix in one line and its stack: the section's first words.
    private static void Lead(StringBuilder html, ExperimentResult experiment)
    {
        if (TimeContent.Lead(experiment) is not { } lead)
        {
            return;
        }
        html.Append($"<p class=\"lead\" id=\"{TimeContent.LeadAnchor(experiment)}\"><strong>")
            .Append(TimeContent.DescribeLead(
                lead with { Variant = H(lead.Variant), Site = lead.Site with { Advice = H(lead.Site.Advice ?? "") } },
                m => $"<code>{H(m)}</code>"))
            .Append("</strong></p>\n<pre>").Append(H(string.Join('\n', lead.Site.Stack))).Append("</pre>\n");
    }

    private static void CallSites(StringBuilder html, ExperimentResult experiment)
    {
        var sites = TimeContent.CallSites(experiment);
        if (sites.Count == 0)
        {
            return;
        }
        html.Append("<h4>Where threads blocked</h4>\n"
            + "<p class=\"note\">Each stack is listed root first, the blocking call last.</p>\n<div class=\"callsites\">\n");
        foreach (var site in sites)
        {
            html.Append("<details><summary>")
                .Append(TimeContent.Describe(site with { Variant = H(site.Variant) }, m => $"<code>{H(m)}</code>"))
                .Append("</summary>\n<pre>")
                .Append(H(string.Join('\n', site.Site.Stack))).Append("</pre></details>\n");
        }
        html.Append("</div>\n");
    }
}
