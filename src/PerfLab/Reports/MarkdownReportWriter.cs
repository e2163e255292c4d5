using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// report.md: the summary (verdicts, seed reproduction, gates,
/// contents), then provenance and one section per experiment.
/// </summary>
public sealed class MarkdownReportWriter : IReportWriter
{
    public string Format => "md";

    public string FileName => "report.md";

    /// <summary>The charts report.md shows as images, SVG files in charts/ beside it.</summary>
    public IReadOnlyList<ReportFile> Companions(RunResults results) =>
        [.. ChartFiles.Of(results).Select(c => new ReportFile(c.RelativePath, c.Svg))];

    public void Write(RunResults results, TextWriter output)
    {
        var md = new MarkdownBuilder(output);
        md.Line("# PerfLab report");
        md.Line();
        if (results.Incomplete)
        {
            MarkdownSummarySection.Paragraph(md, $"**Incomplete run:** {results.IncompleteReason ?? "stopped early"}. The figures "
                + "cover what was measured before it stopped.", "> ", "> ");
        }
        if (results.MachineNoise is { } noise)
        {
            MarkdownSummarySection.Paragraph(md, $"**{noise.Describe()}.**", "> ", "> ");
        }
        // The answer first: verdicts, the seed claims, the gates, then where to find the details.
        MarkdownSummarySection.Write(md, results);
        InvocationsContent.WriteMarkdown(md, results);
        WriteSeedReproduction(md, results);
        ThresholdSection.WriteMarkdown(md, results.Thresholds);
        WriteContents(md, results);

        md.Line("## Provenance");
        md.Line();
        md.Table(ReportContent.Provenance(results), headerless: true);
        md.Line();
        md.Line(ReportContent.IntervalNote);
        md.Line();
        foreach (var note in results.Notes)
        {
            md.Line($"- {Md.Inline(note)}");
        }
        if (results.Notes.Count > 0)
        {
            md.Line();
        }

        foreach (var experiment in results.Experiments)
        {
            WriteExperiment(md, experiment);
        }
        MarkdownSweepSection.Write(md, results);
    }

    private static void WriteSeedReproduction(MarkdownBuilder md, RunResults results)
    {
        md.Line("## Seed reproduction");
        md.Line();
        md.Line(ReportContent.HoldsLegend(s => $"**{s}**", s => $"*{s}*"));
        md.Line();
        var claims = ReportContent.SeedReproduction(results);
        if (claims.Rows.Count == 0)
        {
            md.Line("No claims were checked in this run.");
        }
        else
        {
            md.Table(claims);
        }
        md.Line();
    }

    private static void WriteContents(MarkdownBuilder md, RunResults results)
    {
        md.Line("## Contents");
        md.Line();
        md.Line(string.Join(", ",
            results.Experiments.Select(e => $"[{Md.Inline(e.Name)}](#{ReportContent.Anchor(e)})")
                .Concat((results.Sweeps ?? []).Select(s => $"[sweep {Md.Inline(s.Experiment)}](#{SweepContent.Anchor(s)})"))
                .Prepend("[provenance](#provenance)")) + ".");
        md.Line();
    }

    private static void WriteExperiment(MarkdownBuilder md, ExperimentResult experiment)
    {
        WriteHeader(md, experiment);
        WriteEffects(md, experiment);
        WriteFigures(md, experiment);
        MarkdownCapacitySection.Write(md, experiment);
        MarkdownTimeSection.Write(md, experiment);
        WriteVerdicts(md, experiment);
        WriteFindings(md, experiment);
        WriteFailedRuns(md, experiment);
    }

    private static void WriteHeader(MarkdownBuilder md, ExperimentResult experiment)
    {
        md.Line($"<a id=\"{ReportContent.Anchor(experiment)}\"></a>");
        md.Line();
        md.Line($"## {Md.Inline(experiment.Name)}: {Md.Inline(experiment.Title)}");
        md.Line();
        if (EffectContent.HasSeed(experiment))
        {
            md.Line($"- **Seed:** {Md.Inline(experiment.Seed)}. **Reproduces:** {Md.Inline(experiment.Reproduces)}");
        }
        if (EffectContent.App(experiment) is { } app)
        {
            md.Line($"- **App:** {Md.Inline(app)}");
        }
        md.Line($"- **Load:** {Md.Inline(experiment.LoadDescription)}; warm-up {Fmt.Duration(experiment.Warmup)}, " +
                $"measured {Fmt.Duration(experiment.Duration)} per run.");
        md.Line($"- **Baseline:** `{experiment.Baseline}`. {ReportContent.RunsLine(experiment)}");
        foreach (var (label, text) in EvidenceContent.Facts(experiment))
        {
            md.Line($"- **{label}:** {Md.Inline(text)}");
        }
        md.Line($"- **Experiment file hash:** `{experiment.FileHash}`");
        foreach (var note in experiment.Notes)
        {
            md.Line($"- **Note:** {Md.Inline(note)}");
        }
        md.Line();
        Image(md, ChartFiles.Change(experiment));
    }

    private static void Image(MarkdownBuilder md, ChartFile? chart)
    {
        if (chart is not null)
        {
            md.Line(ChartFiles.Image(chart));
            md.Line();
        }
    }

    private static void WriteEffects(MarkdownBuilder md, ExperimentResult experiment)
    {
        var lines = EffectContent.Lines(experiment);
        if (lines.Count == 0)
        {
            return;
        }
        md.Line("### Variants in effect");
        md.Line();
        md.Line(EffectContent.Legend);
        md.Line();
        foreach (var (variant, text) in lines)
        {
            md.Line($"- `{variant}`: {Md.Inline(text)}");
        }
        md.Line();
    }

    private static void WriteFigures(MarkdownBuilder md, ExperimentResult experiment)
    {
        md.Line("### Throughput and mean latency");
        md.Line();
        md.Table(ReportContent.Throughput(experiment));
        md.Line();
        Image(md, ChartFiles.Timeline(experiment));
        md.Line("### Tail latency");
        md.Line();
        md.Table(ReportContent.TailLatency(experiment));
        md.Line();
        md.Line("### Runtime counters");
        md.Line();
        md.Line("Averages over the measured window of each run (dotnet-counters names), then the median over runs.");
        md.Line();
        md.Table(ReportContent.Counters(experiment));
        md.Line();
        md.Line("### Per-request efficiency");
        md.Line();
        md.Table(ReportContent.Efficiency(experiment));
        md.Line();
    }

    private static void WriteVerdicts(MarkdownBuilder md, ExperimentResult experiment)
    {
        md.Line($"### Against the baseline (`{experiment.Baseline}`)");
        md.Line();
        if (experiment.Comparisons.Count == 0)
        {
            md.Line("No comparison: the baseline or every other variant lacks successful runs.");
        }
        else
        {
            md.Line(ReportContent.VerdictLegend);
            md.Line();
            md.Table(ReportContent.Comparisons(experiment));
        }
        md.Line();
        md.Line("### Every run, in run order");
        md.Line();
        md.Line("All-scenario RPS (burst and upload experiments: mean batch time) of each run, with its place in the order (#).");
        md.Line();
        md.Table(EvidenceContent.RunsInOrder(experiment));
        md.Line();
    }

    private static void WriteFindings(MarkdownBuilder md, ExperimentResult experiment)
    {
        md.Line("### Findings");
        md.Line();
        if (experiment.Findings.Count == 0)
        {
            md.Line("Nothing in the counters called for a finding.");
        }
        else
        {
            md.Table(ReportContent.Findings(experiment));
        }
        md.Line();
    }

    private static void WriteFailedRuns(MarkdownBuilder md, ExperimentResult experiment)
    {
        var failed = ReportContent.FailedRuns(experiment).ToList();
        if (failed.Count == 0)
        {
            return;
        }
        md.Line("### Failed runs");
        md.Line();
        foreach (var run in failed)
        {
            md.Line($"- `{run.Variant}`, repetition {Fmt.Int(run.Repetition)} (run {Fmt.Int(run.Order)}, " +
                $"started {Fmt.Timestamp(run.StartedAt)}): " +
                $"{run.Status.ToString().ToLowerInvariant()}{(run.FailureKind is { } kind ? $" ({kind})" : "")}: " +
                $"{Md.Inline(run.FailureReason ?? "no reason recorded")}");
            if (!string.IsNullOrWhiteSpace(run.LogTail))
            {
                md.Line();
                md.CodeBlock(run.LogTail);
            }
        }
        md.Line();
    }
}
