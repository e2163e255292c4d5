using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// report.md's "Where the time goes" for an experiment with evidence: the breakdown table, the database client's
/// figures and the call sites that blocked, each with its stack in a code block. Nothing for an experiment without
/// evidence. The flame graphs are in report.html only; the Markdown names the speedscope files the trace left.
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
        if (profiles.Count > 0)
        {
            md.Line("CPU profiles (open in speedscope): " +
                    string.Join(", ", profiles.Select(e => $"`{e.Variant}`: `{Md.Inline(e.SpeedscopeFile!)}`")) +
                    ". Flame graphs, with a differential against the baseline, are in report.html.");
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
            md.Line($"- {TimeContent.Describe(site with { Variant = Md.Inline(site.Variant) }, m => $"`{Md.Inline(m).Replace("`", "'", StringComparison.Ordinal)}`")}");
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
