using System.Globalization;
using System.Text.Json.Nodes;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

// The traces' evidence in the reports: where the time goes, the database client, the call sites that blocked, findings
// with a place and a strength, and the flame graphs' data; and a result from before traces renders as it did.
public sealed class TimeSectionTests
{
    private static string Render(IReportWriter writer, RunResults results)
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        writer.Write(results, output);
        return output.ToString();
    }

    [Fact]
    public void MarkdownWriter_RunWithEvidence_ShowsTheBreakdownPerVariant()
    {
        var markdown = Render(new MarkdownReportWriter(), ReportFixtures.Sample());

        Assert.Contains("### Where the time goes", markdown);
        Assert.Contains("|  | newtonsoft (baseline) | system-text-json | system-text-json-sourcegen |", markdown);
        Assert.Contains("| traced run | repetition 1, 20 s, 6688 requests | repetition 1, 20 s, 8102 requests | repetition 1, 20 s, 8560 requests |", markdown);
        Assert.Contains("| CPU ms/req: JSON | 1.431 | 0.802 | 0.655 |", markdown);
        Assert.Contains("| **CPU ms/req: total** | **3.512** | **2.701** | **2.526** |", markdown);
        Assert.Contains("| database ms/req (client) | 1.874 | 1.702 | 1.688 |", markdown);
        Assert.Contains("| GC pause share | 4.1 % | 2.9 % | 2.7 % |", markdown);
        Assert.Contains("| GC CPU share | 14.6 % | 11.7 % | 11.2 % |", markdown);
        // Only the traced variants of sync-over-async get a column.
        Assert.Contains("|  | async (baseline) | sync-over-async |\n", markdown);
        Assert.Contains("| lock-blocked ms/req | 0.000 | 12.60 |", markdown);
        Assert.Contains("| blocking-wait ms/req | 0.000 | 1187.4 |", markdown);
    }

    [Fact]
    public void MarkdownWriter_ComponentNotKnownToTheWriter_StillShownAndCounted()
    {
        var sample = ReportFixtures.Sample();
        var serializer = sample.Experiments[0];
        var evidence = serializer.Evidence[0];
        var cpu = new Dictionary<string, double>(evidence.CpuMsPerRequest) { ["Regex"] = 0.25 };
        var results = sample with
        {
            Experiments = [serializer with { Evidence = [evidence with { CpuMsPerRequest = cpu }] }, sample.Experiments[1]],
        };

        var markdown = Render(new MarkdownReportWriter(), results);

        Assert.Contains("|  | newtonsoft (baseline) |\n", markdown);
        Assert.Contains("| CPU ms/req: Regex | 0.250 |", markdown);
        Assert.Contains("| **CPU ms/req: total** | **3.762** |", markdown);
    }

    [Fact]
    public void MarkdownWriter_RunsWithDatabaseStats_ShowsTheMedianPerVariant()
    {
        var markdown = Render(new MarkdownReportWriter(), ReportFixtures.Sample());

        Assert.Contains("| variant | commands/req | command ms/req | connections busy | connections idle | waiting for a connection | runs |", markdown);
        // Two runs (1.9 and 2.0 ms): the median is their mean; the failed run of sourcegen has no stats.
        Assert.Contains("| newtonsoft (baseline) | 1.50 | 1.950 | 4.5 | 5.5 | 0.38 | 2 |", markdown);
        Assert.Contains("| system-text-json-sourcegen | 1.50 | 1.700 | 4.0 | 6.0 | 0.25 | 1 |", markdown);
        // sync-over-async's runs carry none: no table for that experiment.
        Assert.Equal(1, Count(markdown, "| variant | commands/req |"));
    }

    [Fact]
    public void MarkdownWriter_BlockingCallSites_ListedWithTheirStackInACodeBlock()
    {
        var markdown = Render(new MarkdownReportWriter(), ReportFixtures.Sample());

        Assert.Contains("- sync-over-async: blocking wait in `PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync`, 1230 times, 1460502.0 ms blocked in all\n\n  ```text\n  System.Threading.ThreadPoolWorkQueue.Dispatch\n", markdown);
        Assert.Contains("  PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync\n  System.Threading.Tasks.Task.Wait\n  ```\n", markdown);
        Assert.Contains("- sync-over-async: lock contention in `Microsoft.Extensions.Logging.Console.ConsoleLoggerProcessor.EnqueueMessage`, 312 times", markdown);
        // The larger blocked time comes first.
        Assert.True(markdown.IndexOf("blocking wait in", StringComparison.Ordinal) < markdown.IndexOf("lock contention in", StringComparison.Ordinal));
    }

    [Fact]
    public void MarkdownWriter_Findings_ShowPlaceAndLabelWeakEvidence()
    {
        var markdown = Render(new MarkdownReportWriter(), ReportFixtures.Sample());

        Assert.Contains("| variant | finding | place | what was seen | evidence | recommendation |", markdown);
        Assert.Contains("| sync-over-async | **Thread-pool starvation** | — | the thread-pool queue", markdown);
        Assert.Contains("queue length median 55; 8 starvation injections (weak evidence: counters only) |", markdown);
        Assert.Contains("| sync-over-async | **Pool thread blocked (sync over async or sync I/O)** | `PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync` | threads waited 1187.4 ms per request in Task.Wait | 1230 blocking waits in the trace of repetition 2 | await", markdown);
    }

    [Fact]
    public void HtmlWriter_RunWithEvidence_HasTheSectionsCallSitesInDetailsAndFlameContainers()
    {
        var html = Render(new HtmlReportWriter(), ReportFixtures.Sample());

        Assert.Contains("<h3>Where the time goes</h3>", html);
        Assert.Contains("<tr><td>CPU ms/req: JSON</td><td class=\"num\">1.431</td><td class=\"num\">0.802</td><td class=\"num\">0.655</td></tr>", html);
        Assert.Contains("<details><summary>sync-over-async: blocking wait in <code>PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync</code>, 1230 times", html);
        Assert.Contains("PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync\nSystem.Threading.Tasks.Task.Wait</pre></details>", html);
        Assert.Contains("<div class=\"flames\" data-experiment=\"serializer\"></div>", html);
        Assert.Contains("<div class=\"charts breakdown\" data-experiment=\"serializer\"></div>", html);
        Assert.Contains("<div class=\"charts runorder\" data-experiment=\"sync-over-async\"></div>", html);
        Assert.Contains("weak evidence: counters only", html);
        Assert.Contains(".d3-flame-graph rect", html);
    }

    [Fact]
    public void Writers_ResultsJsonFromBeforeTraces_RenderWithoutTheTimeSection()
    {
        var json = JsonNode.Parse(ResultsJson.Serialize(ReportFixtures.Sample()))!;
        foreach (var experiment in json["experiments"]!.AsArray())
        {
            experiment!.AsObject().Remove("evidence");
            foreach (var run in experiment["runs"]!.AsArray())
            {
                run!.AsObject().Remove("database");
            }
            foreach (var finding in experiment["findings"]!.AsArray())
            {
                finding!.AsObject().Remove("place");
                finding.AsObject().Remove("strength");
            }
        }
        var old = ResultsJson.Deserialize(json.ToJsonString(), "old results.json");

        var markdown = Render(new MarkdownReportWriter(), old);
        var html = Render(new HtmlReportWriter(), old);

        Assert.DoesNotContain("Where the time goes", markdown);
        Assert.DoesNotContain("commands/req", markdown);
        Assert.DoesNotContain("<h3>Where the time goes</h3>", html);
        Assert.DoesNotContain("class=\"flames\"", html);
        Assert.DoesNotContain("class=\"charts breakdown\"", html);
        // A finding from before strengths were recorded came from counters.
        Assert.Contains("8 starvation injections (weak evidence: counters only)", markdown);
        Assert.Contains("<div class=\"charts runorder\" data-experiment=\"serializer\"></div>", html);
    }

    [Fact]
    public void FlameGraphModel_Differential_ComparesSharesNotSampleCounts()
    {
        var graphs = FlameGraphModel.Build(ReportFixtures.Sample().Experiments[0]);

        Assert.Equal(["newtonsoft", "system-text-json", "system-text-json-sourcegen"], graphs.Select(g => g.Variant));
        var baseline = graphs[0];
        Assert.Null(baseline.Differential);
        Assert.Equal(100, baseline.Tree.Value);
        Assert.Equal(10400, baseline.Samples);

        var stj = graphs[1];
        Assert.Equal("newtonsoft", stj.Baseline);
        var gc = stj.Differential!.Children.Single(c => c.Name == "coreclr!WKS::gc_heap::garbage_collect");
        // 1800 samples in both: 23.15 % of 7775 against 17.31 % of 10400, so the share grew though the count did not.
        Assert.Equal(1800 * 100.0 / 7775, gc.Value, 3);
        Assert.Equal((1800 * 100.0 / 7775) - (1800 * 100.0 / 10400), gc.Delta!.Value, 3);
        // A frame only the variant has: its whole share is the change.
        var serialize = Find(stj.Differential, "System.Text.Json.JsonSerializer.Serialize");
        Assert.Equal(serialize.Value, serialize.Delta);
        Assert.Null(stj.Tree.Delta);
        Assert.Equal(0, stj.Differential.Delta!.Value, 6);
    }

    private static FlameNode Find(FlameNode node, string name) =>
        node.Name == name ? node : node.Children.Select(c => Find(c, name)).FirstOrDefault(n => n is not null)!;

    private static int Count(string text, string part)
    {
        var count = 0;
        for (var i = text.IndexOf(part, StringComparison.Ordinal); i >= 0; i = text.IndexOf(part, i + 1, StringComparison.Ordinal))
        {
            count++;
        }
        return count;
    }
}
