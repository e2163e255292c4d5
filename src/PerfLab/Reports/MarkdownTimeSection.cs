using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// report.md's "Where the time goes" for an experiment with evidence: the breakdown table, the database client's
/// figures and the call sites that blocked, each with its stack in a code block. Nothing for an experiment without
/// evidence. The flame graphs are in report.html only; the Markdown names the speedscope files the traces left.
/// </summary>
internal static class MarkdownTimeSection
{
    public static void Write(MarkdownBuilder md, ExperimentResult experiment)
    {
        if (!TimeContent.HasEvidence(experiment))
        {
            return;
        }
        md.Line("### Where the time goes");
        md.Line();
        Lead(md, experiment);
        md.Line(TimeContent.Note);
        md.Line();
        md.Table(TimeContent.Breakdown(experiment));
        md.Line();
        if (TimeContent.DatabaseClient(experiment) is { } database)
        {
            md.Line(TimeContent.DatabaseNote);
            md.Line();
            md.Table(database);
            md.Line();
        }
        CallSites(md, experiment);
        var profiles = TimeContent.Evidence(experiment).Where(e => e.SpeedscopeFile is not null).ToList();
        var flames = TimeContent.Evidence(experiment).Any(e => e.TopStacks.Count > 0)
            ? "Flame graphs of the heaviest stacks, with a differential against the baseline, are in report.html."
            : "";
        if (profiles.Count > 0 || flames.Length > 0)
        {
            var files = profiles.Count == 0 ? "" : "CPU profiles (open in speedscope): " +
                string.Join(", ", profiles.Select(e => $"`{Md.Inline(e.Variant)}`: `{Md.Inline(e.SpeedscopeFile!)}`")) + ". ";
            md.Line((files + flames).TrimEnd());
            md.Line();
        }
    }

    // The blocking call that costs most per request, its fix in one line and its stack: the section's first words.
    private static void Lead(MarkdownBuilder md, ExperimentResult experiment)
    {
        if (TimeContent.Lead(experiment) is not { } lead)
        {
            return;
        }
        md.Line($"<a id=\"{TimeContent.LeadAnchor(experiment)}\"></a>**" + TimeContent.DescribeLead(
            lead with { Variant = Md.Inline(lead.Variant), Site = lead.Site with { Advice = Md.Inline(lead.Site.Advice ?? "") } },
            m => $"`{Md.Inline(m).Replace("`", "'", StringComparison.Ordinal)}`") + "**");
        md.Line();
        if (lead.Site.Stack.Count > 0)
        {
            md.CodeBlock(string.Join('\n', lead.Site.Stack));
            md.Line();
        }
    }

    private static void CallSites(MarkdownBuilder md, ExperimentResult experiment)
    {
        var sites = TimeContent.CallSites(experiment);
        if (sites.Count == 0)
        {
            return;
        }
        md.Line("Where threads blocked (each stack root first, the blocking call last):");
        md.Line();
        foreach (var site in sites)
        {
            md.Line($"- {TimeContent.Describe(
                site with { Variant = Md.Inline(site.Variant) },
                m => $"`{Md.Inline(m).Replace("`", "'", StringComparison.Ordinal)}`")}");
            if (site.Site.Stack.Count > 0)
            {
                md.Line();
                md.CodeBlock(string.Join('\n', site.Site.Stack));
                md.Line();
            }
        }
        if (sites[^1].Site.Stack.Count == 0)
        {
            md.Line();
        }
    }
}
