using System.Text.Json;
using PerfLab.Common;
using PerfLab.Tests.Cli;

namespace PerfLab.Tests.Apps;

/// <summary>`--json` and `--junit` of `perflab run` and `perflab compare`, on TinyShop with real builds and real load.</summary>
[Collection(CpuHeavy.A)]
public sealed class CiOutputRunTests(TinyShopBuild tinyShop)
{
    private static string NewFolder() => Path.Combine(Path.GetTempPath(), "perflab-ci-" + Guid.NewGuid().ToString("N")[..12]);

    [Fact]
    public async Task Run_Json_PrintsOnlyTheSummaryWithTheCachedReportBetter()
    {
        // The run is shared with AppRunTests (which reads its results and trace); --json keeps stdout to the summary.
        var (result, output) = await tinyShop.CachingRunAsync();

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(result.Stdout);
        Assert.Equal("run", json.RootElement.GetProperty("verb").GetString());
        Assert.Equal("passed", json.RootElement.GetProperty("outcome").GetString());
        // The deciding change first (RPS here), the ones beside it (cost per request) after it.
        var changes = json.RootElement.GetProperty("changes").EnumerateArray().ToList();
        var cached = Assert.Single(changes, c => c.GetProperty("decides").GetBoolean());
        Assert.Equal(cached.ToString(), changes[0].ToString());
        Assert.Equal(("caching", "cached", "computed", "rps"), (cached.GetProperty("experiment").GetString(), cached.GetProperty("variant").GetString(),
            cached.GetProperty("against").GetString(), cached.GetProperty("metric").GetString()));
        // The cached report skips the computation: it serves several times the requests (measured > +100 % in CompareCommandTests).
        Assert.True(cached.GetProperty("changePercent").GetDouble() > 50, cached.ToString());
        Assert.Equal("better", cached.GetProperty("verdict").GetString());
        Assert.Equal(Path.Combine(output, "report.md"), json.RootElement.GetProperty("reports")[0].GetString());
        // The progress went to stderr.
        Assert.Contains("caching: computed", result.Stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Compare_ThresholdPrecisionBudgetJunit_FailsTheGateWithItsFigureAndExitsFive()
    {
        await tinyShop.DllAsync();
        var output = NewFolder();
        var junit = output + ".xml";
        try
        {
            var result = await PerfLabProcess.RunAsync(tinyShop.Environment, "compare", TinyShopBuild.Project, "--url", "/report", "--users", "4",
                "--variant", "computed", "--variant", "cached: --Report:Cache=true", "--ready", "/healthz", "--profile", "smoke", "--repeat", "2",
                "--precision", "50%", "--budget", "2m", "--threshold", "p99<0.001ms", "--threshold", "errors<1%",
                "--no-trace", "--out", output, "--junit", junit, "--json");

            Assert.True(result.ExitCode == (int)ExitCode.ThresholdsFailed, result.ToString());
            using var json = JsonDocument.Parse(result.Stdout);
            Assert.Equal("gates failed", json.RootElement.GetProperty("outcome").GetString());
            var gates = json.RootElement.GetProperty("gates").EnumerateArray().ToList();
            Assert.All(gates.Where(g => g.GetProperty("threshold").GetString() == "p99<0.001ms"), g => Assert.False(g.GetProperty("passed").GetBoolean()));
            Assert.All(gates.Where(g => g.GetProperty("threshold").GetString() == "errors<1%"), g => Assert.True(g.GetProperty("passed").GetBoolean()));

            var suites = await JunitParser.ReadAsync(junit);
            var cases = JunitParser.Suite(suites, "gates").GetProperty("cases").EnumerateArray().ToList();
            Assert.Equal(gates.Count, cases.Count);
            var p99 = cases.Where(c => c.GetProperty("name").GetString()!.StartsWith("p99<0.001ms", StringComparison.Ordinal)).ToList();
            Assert.NotEmpty(p99);
            // A failure carries the latency observed: some milliseconds, far above the 1 µs asked.
            Assert.All(p99, c => Assert.Matches(@"^observed [0-9.]+ ms: p99<0.001ms does not hold$", c.GetProperty("message").GetString()));
            Assert.Equal("better", JunitParser.Suite(suites, "verdicts").GetProperty("cases")[0].GetProperty("out").GetString()!.Split(": ")[^1]);
        }
        finally
        {
            TestCaches.Delete(output);
            File.Delete(junit);
        }
    }
}
