using System.Globalization;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

// "Where the time goes" leads with the blocking call that costs most per request, its fix in one line and its stack;
// the experiment's seed claims link to it. Only where a trace made a strong finding of a blocking call.
public sealed class BlockingLeadTests
{
    private const string Advice = "await the task instead (async all the way: no .Wait(), .Result or GetResult())";

    private static string Render(IReportWriter writer, RunResults results)
    {
        using var output = new StringWriter(CultureInfo.InvariantCulture) { NewLine = "\n" };
        writer.Write(results, output);
        return output.ToString();
    }

    // The sample run's sync-over-async trace, its blocking wait with what a trace now gives it: the call, its cost per
    // request and the advice; beside it a cheaper wait of the same variant.
    private static RunResults Sample()
    {
        var results = ReportFixtures.Sample();
        return results with
        {
            Experiments = [.. results.Experiments.Select(e => e.Name != "sync-over-async" ? e : e with
            {
                Evidence = [.. e.Evidence.Select(v => v.BlockingWaits.Count == 0 ? v : v with
                {
                    BlockingWaits =
                    [
                        v.BlockingWaits[0] with { Call = "Task.Wait()", MsPerRequest = 1187.4, Advice = Advice },
                        new CallSite("PerfLab.Sut.Products.ProductsApi.Log", 40, 120,
                            ["PerfLab.Sut.Products.ProductsApi.Log", "System.Threading.Thread.Sleep"])
                        {
                            Call = "Thread.Sleep()", MsPerRequest = 0.1, Advice = "await Task.Delay instead",
                        },
                    ],
                })],
            })],
        };
    }

    [Fact]
    public void MarkdownWriter_StrongBlockingFinding_SectionLeadsWithTheCostliestCallItsFixAndStack_ClaimsLinkToIt()
    {
        var markdown = Render(new MarkdownReportWriter(), Sample());

        var lead = "<a id=\"blocking-sync-over-async\"></a>**Costliest blocking call: `Task.Wait()` in "
            + "`PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync`, 1187.4 ms per request (sync-over-async). Fix: "
            + Advice + ".**\n\n  ```text\n";
        var section = markdown.IndexOf("### Where the time goes\n\n" + lead, StringComparison.Ordinal);
        Assert.True(section >= 0, markdown);
        // The stack below it, before the section's note; the cheaper call stays in the list, the lead is not repeated.
        var stack = markdown.IndexOf("PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync\n  System.Threading.Tasks.Task.Wait\n",
            section, StringComparison.Ordinal);
        Assert.InRange(stack, section, markdown.IndexOf("From an EventPipe trace", section, StringComparison.Ordinal));
        Assert.Contains("- sync-over-async: Thread.Sleep() in `PerfLab.Sut.Products.ProductsApi.Log`", markdown);
        Assert.DoesNotContain("- sync-over-async: Task.Wait() in", markdown);
        Assert.Contains("| [Task.Wait() instead of await: mean latency 0.46 s → 1.47 s](#blocking-sync-over-async) |", markdown);
        // The serializer experiment's trace found no blocking call: its claims link nowhere.
        Assert.Single(System.Text.RegularExpressions.Regex.Matches(markdown, "<a id=\"blocking-"));
        Assert.DoesNotContain("(#blocking-serializer)", markdown);
    }

    [Fact]
    public void HtmlWriter_StrongBlockingFinding_LeadWithAnchorAndStack_ClaimsLinkToIt()
    {
        var html = Render(new HtmlReportWriter(), Sample());

        Assert.Contains("<h3>Where the time goes</h3>\n<p class=\"lead\" id=\"blocking-sync-over-async\"><strong>Costliest blocking call: "
            + "<code>Task.Wait()</code> in <code>PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync</code>, 1187.4 ms per request "
            + "(sync-over-async). Fix: " + Advice + ".</strong></p>\n<pre>", html);
        Assert.Contains("<a href=\"#blocking-sync-over-async\">Task.Wait() instead of await: mean latency 0.46 s → 1.47 s</a>", html);
    }

    [Fact]
    public void Writers_BlockingFindingOnlyWeak_NoLeadNoLink()
    {
        var results = Sample();
        results = results with
        {
            Experiments = [.. results.Experiments.Select(e => e with
            {
                Findings = [.. e.Findings.Select(f => f with { Strength = EvidenceStrength.Weak })],
            })],
        };

        var markdown = Render(new MarkdownReportWriter(), results);

        Assert.DoesNotContain("Costliest blocking call", markdown);
        Assert.DoesNotContain("#blocking-", markdown);
        Assert.Contains("- sync-over-async: Task.Wait() in `PerfLab.Sut.Products.ProductsApi.GetProductsSyncOverAsync`", markdown);
    }
}
