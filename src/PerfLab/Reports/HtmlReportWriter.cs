using System.Reflection;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.RegularExpressions;
using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// report.html: one self-contained page (Chart.js, d3, d3-flame-graph, styles, data and scripts inlined; a
/// Content-Security-Policy that forbids every network request) with the Markdown report's tables and charts: bars with
/// 95 % interval whiskers per experiment, timelines of RPS, p99, thread-pool threads and queue length, every run in run
/// order, and where traced, where the time goes (stacked bars) and flame graphs with a differential against the baseline.
/// </summary>
public sealed partial class HtmlReportWriter : IReportWriter
{
    private const string ResourcePrefix = "PerfLab.Reports.";

    private static readonly Lazy<string> _template = new(() => Resource("report.html"));
    private static readonly Lazy<string> _style = new(() => Resource("report.css"));
    private static readonly Lazy<string> _script = new(() => Resource("report.js"));
    private static readonly Lazy<string> _chartJs = new(() => StripSourceMap(Resource("chart.umd.min.js")));
    private static readonly Lazy<string> _d3 = new(() => StripSourceMap(Resource("d3.min.js")));
    private static readonly Lazy<string> _flameGraph = new(() => StripSourceMap(Resource("d3-flamegraph.umd.min.js")));
    private static readonly Lazy<string> _flameGraphCss = new(() => Resource("d3-flamegraph.css"));
    private static readonly Lazy<string> _flameScript = new(() => Resource("flames.js"));

    // The default encoder escapes <, > and &, so the data cannot close the script element it sits in.
    private static readonly JsonSerializerOptions _dataOptions = new(ResultsJson.Options)
    {
        Encoder = JavaScriptEncoder.Default,
        WriteIndented = false,
        // A flame graph's tree is as deep as its deepest stack (ASP.NET Core stacks run past 100 frames).
        MaxDepth = 1024,
    };

    public string Format => "html";

    public string FileName => "report.html";

    public void Write(RunResults results, TextWriter output)
    {
        var data = JsonSerializer.Serialize(ChartModel.Build(results), _dataOptions);
        var values = new Dictionary<string, string>
        {
            ["title"] = H($"PerfLab report {Fmt.Timestamp(results.StartedAt)}"),
            ["style"] = _style.Value + "\n" + _flameGraphCss.Value,
            ["body"] = Body(results),
            ["data"] = data,
            ["chartjs"] = _chartJs.Value,
            ["d3"] = _d3.Value,
            ["flamegraph"] = _flameGraph.Value,
            ["script"] = _script.Value,
            ["flames"] = _flameScript.Value,
        };
        // One pass over the template: text from the results can never be taken for a placeholder.
        var page = Placeholder().Replace(_template.Value, m => values[m.Groups[1].Value]);
        output.Write(page.ReplaceLineEndings("\n"));
    }

    private static string Body(RunResults results)
    {
        var html = new StringBuilder();
        html.Append("<h1>PerfLab report</h1>\n");
        if (results.Incomplete)
        {
            html.Append("<p class=\"warning\"><strong>Incomplete run:</strong> ")
                .Append(H(results.IncompleteReason ?? "stopped early"))
                .Append(". The figures cover what was measured before it stopped.</p>\n");
        }
        // The answer first: verdicts, the seed claims, the gates, then where to find the details.
        HtmlSummarySection.Write(html, results);
        InvocationsContent.WriteHtml(html, results);
        SeedReproduction(html, results);
        ThresholdSection.WriteHtml(html, results.Thresholds);
        html.Append("<nav>Contents: <a href=\"#provenance\">provenance</a>")
            .AppendJoin("", results.Experiments.Select(e => $", <a href=\"#{ReportContent.Anchor(e)}\">{H(e.Name)}</a>"))
            .AppendJoin("", (results.Sweeps ?? []).Select(s => $", <a href=\"#{SweepContent.Anchor(s)}\">sweep {H(s.Experiment)}</a>"))
            .Append("</nav>\n");

        html.Append("<section id=\"provenance\">\n<h2>Provenance</h2>\n");
        Table(html, ReportContent.Provenance(results), "provenance", headerless: true);
        html.Append("<p class=\"note\">").Append(InlineCode(ReportContent.IntervalNote)).Append("</p>\n");
        foreach (var note in results.Notes)
        {
            html.Append("<p class=\"note\">").Append(H(note)).Append("</p>\n");
        }
        html.Append("</section>\n");

        foreach (var experiment in results.Experiments)
        {
            Experiment(html, experiment);
        }
        HtmlSweepSection.Write(html, results);
        return html.ToString();
    }

    private static void SeedReproduction(StringBuilder html, RunResults results)
    {
        html.Append("<section id=\"seed-reproduction\">\n<h2>Seed reproduction</h2>\n");
        html.Append("<p class=\"note\">")
            .Append(ReportContent.HoldsLegend(s => $"<strong>{H(s)}</strong>", s => $"<em>{H(s)}</em>"))
            .Append("</p>\n");
        var claims = ReportContent.SeedReproduction(results);
        if (claims.Rows.Count == 0)
        {
            html.Append("<p>No claims were checked in this run.</p>\n");
        }
        else
        {
            Table(html, claims, "claims");
        }
        html.Append("</section>\n");
    }

    private static void Experiment(StringBuilder html, ExperimentResult experiment)
    {
        var id = ReportContent.Anchor(experiment);
        html.Append($"<section class=\"experiment\" id=\"{id}\">\n");
        Facts(html, experiment);
        if (ChartModel.Change(experiment) is { } change)
        {
            // The same forest plot report.md shows as charts/<experiment>-change.svg.
            html.Append("<div class=\"forest\">\n").Append(SvgForest.Render(change)).Append("</div>\n");
        }
        Effects(html, experiment);

        // The script fills these placeholders from the page's data, in the same order as ChartModel lists them.
        html.Append($"<div class=\"charts bars\" data-experiment=\"{id}\"></div>\n");
        html.Append($"<div class=\"charts timelines\" data-experiment=\"{id}\"></div>\n");

        html.Append("<h3>Throughput and mean latency</h3>\n");
        Table(html, ReportContent.Throughput(experiment), "throughput");
        html.Append("<h3>Tail latency</h3>\n");
        Table(html, ReportContent.TailLatency(experiment), "latency");
        html.Append("<h3>Runtime counters</h3>\n"
            + "<p class=\"note\">Averages over the measured window of each run (dotnet-counters names), then the median over runs.</p>\n");
        Table(html, ReportContent.Counters(experiment), "counters");
        html.Append("<h3>Per-request efficiency</h3>\n");
        Table(html, ReportContent.Efficiency(experiment), "efficiency");
        HtmlCapacitySection.Write(html, experiment);
        HtmlTimeSection.Write(html, experiment);
        Verdicts(html, experiment);
        FailedRuns(html, experiment);
        html.Append("</section>\n");
    }

    private static void Effects(StringBuilder html, ExperimentResult experiment)
    {
        var lines = EffectContent.Lines(experiment);
        if (lines.Count == 0)
        {
            return;
        }
        html.Append($"<h3>Variants in effect</h3>\n<p class=\"note\">{H(EffectContent.Legend)}</p>\n<ul class=\"effects\">\n");
        foreach (var (variant, text) in lines)
        {
            html.Append($"<li><code>{H(variant)}</code>: {H(text)}</li>\n");
        }
        html.Append("</ul>\n");
    }

    private static void Facts(StringBuilder html, ExperimentResult experiment)
    {
        html.Append($"<h2>{H(experiment.Name)}: {H(experiment.Title)}</h2>\n<ul class=\"facts\">\n");
        if (EffectContent.HasSeed(experiment))
        {
            html.Append($"<li><strong>Seed:</strong> {H(experiment.Seed)}. <strong>Reproduces:</strong> {H(experiment.Reproduces)}</li>\n");
        }
        if (EffectContent.App(experiment) is { } app)
        {
            html.Append($"<li><strong>App:</strong> {H(app)}</li>\n");
        }
        html.Append($"<li><strong>Load:</strong> {H(experiment.LoadDescription)}; warm-up {H(Fmt.Duration(experiment.Warmup))}, " +
                    $"measured {H(Fmt.Duration(experiment.Duration))} per run.</li>\n");
        html.Append($"<li><strong>Baseline:</strong> <code>{H(experiment.Baseline)}</code>. " +
                    $"{H(ReportContent.RunsLine(experiment))}</li>\n");
        foreach (var (label, text) in EvidenceContent.Facts(experiment))
        {
            html.Append($"<li><strong>{label}:</strong> {H(text)}</li>\n");
        }
        html.Append($"<li><strong>Experiment file hash:</strong> <code>{H(experiment.FileHash)}</code></li>\n");
        foreach (var note in experiment.Notes)
        {
            html.Append($"<li><strong>Note:</strong> {H(note)}</li>\n");
        }
        html.Append("</ul>\n");
    }

    private static void Verdicts(StringBuilder html, ExperimentResult experiment)
    {
        html.Append($"<h3>Against the baseline (<code>{H(experiment.Baseline)}</code>)</h3>\n");
        if (experiment.Comparisons.Count == 0)
        {
            html.Append("<p>No comparison: the baseline or every other variant lacks successful runs.</p>\n");
        }
        else
        {
            html.Append($"<p class=\"note\">{H(ReportContent.VerdictLegend)}</p>\n");
            Table(html, ReportContent.Comparisons(experiment), "comparisons");
        }
        html.Append("<h3>Every run, in run order</h3>\n<p class=\"note\">All-scenario RPS (burst and upload experiments: mean batch time) "
            + "of each run, with its place in the order (#).</p>\n");
        html.Append("<div class=\"side\">\n");
        Table(html, EvidenceContent.RunsInOrder(experiment), "runs");
        html.Append($"<div class=\"charts runorder\" data-experiment=\"{ReportContent.Anchor(experiment)}\"></div>\n</div>\n");

        html.Append("<h3>Findings</h3>\n");
        if (experiment.Findings.Count == 0)
        {
            html.Append("<p>Nothing in the counters called for a finding.</p>\n");
        }
        else
        {
            Table(html, ReportContent.Findings(experiment), "findings");
        }
    }

    private static void FailedRuns(StringBuilder html, ExperimentResult experiment)
    {
        var failed = ReportContent.FailedRuns(experiment).ToList();
        if (failed.Count == 0)
        {
            return;
        }
        html.Append("<h3>Failed runs</h3>\n<ul class=\"failed\">\n");
        foreach (var run in failed)
        {
            html.Append($"<li><code>{H(run.Variant)}</code>, repetition {Fmt.Int(run.Repetition)} (run {Fmt.Int(run.Order)}, " +
                        $"started {H(Fmt.Timestamp(run.StartedAt))}): {H(run.Status.ToString().ToLowerInvariant())}" +
                        $"{(run.FailureKind is { } kind ? $" ({kind})" : "")}: {H(run.FailureReason ?? "no reason recorded")}");
            if (!string.IsNullOrWhiteSpace(run.LogTail))
            {
                html.Append("\n<pre>").Append(H(run.LogTail.TrimEnd())).Append("</pre>");
            }
            html.Append("</li>\n");
        }
        html.Append("</ul>\n");
    }

    private static void Table(StringBuilder html, ReportTable table, string cssClass, bool headerless = false) =>
        HtmlParts.Table(html, table, cssClass, headerless);

    [GeneratedRegex(@"\{\{(title|style|body|data|chartjs|d3|flamegraph|script|flames)\}\}")]
    private static partial Regex Placeholder();

    private static string H(string text) => HtmlParts.H(text);

    // The interval note carries Markdown backticks; in HTML they become <code>.
    private static string InlineCode(string text)
    {
        var parts = H(text).Split('`');
        var html = new StringBuilder();
        for (var i = 0; i < parts.Length; i++)
        {
            html.Append(i % 2 == 1 ? $"<code>{parts[i]}</code>" : parts[i]);
        }
        return html.ToString();
    }

    // The page must make no request at all, not even for a source map when developer tools open.
    private static string StripSourceMap(string script) =>
        string.Join('\n', script.ReplaceLineEndings("\n").Split('\n')
            .Where(l => !l.StartsWith("//# sourceMappingURL=", StringComparison.Ordinal)));

    private static string Resource(string name)
    {
        using var stream = Assembly.GetExecutingAssembly().GetManifestResourceStream(ResourcePrefix + name)
            ?? throw new InvalidOperationException($"perflab was built without its embedded {name}; rebuild it (the build runs npm ci for "
                + $"Chart.js, d3 and d3-flame-graph).");
        using var reader = new StreamReader(stream, Encoding.UTF8);
        return reader.ReadToEnd();
    }
}
