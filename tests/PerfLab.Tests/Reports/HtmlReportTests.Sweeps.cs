using PerfLab.Reports;

namespace PerfLab.Tests.Reports;

public sealed partial class HtmlReportTests
{
    [Fact]
    public async Task HtmlReport_WithASweep_DrawsItsChangeAgainstTheCondition()
    {
        var artifacts = Path.Combine(AppContext.BaseDirectory, "TestResults", "html-report-sweep");
        Directory.CreateDirectory(artifacts);
        var html = ReportWriters.WriteAll(SweepFixtures.Sample(), artifacts, ReportWriters.ForFormats("html")).Single();

        var dom = await RunChromiumAsync("--virtual-time-budget=3000", "--dump-dom", new Uri(html).AbsoluteUri);

        var body = BodyTag().Match(dom);
        Assert.True(body.Success, "chromium printed no <body> tag:\n" + dom[..Math.Min(dom.Length, 2000)]);
        Assert.DoesNotContain("data-chart-error", body.Value);
        // The sample's 16 charts and the sweep's, every one drawn onto a non-blank canvas.
        Assert.Equal("17", Attribute(body.Value, "data-charts-total"));
        Assert.Equal("17", Attribute(body.Value, "data-charts-rendered"));
        Assert.Contains("<div class=\"charts sweep\" data-sweep=\"sweep-sync-async-rtt\"><div class=\"chart\"><h4>Change of RPS against the baseline (%), with 95 % interval, by database round-trip time (ms)</h4>", dom);
        Assert.Contains("<li><strong>Crossover:</strong> async: crossover at 2 ms, the first value where its change is decided better; not decided better at 5 ms.</li>", dom);
        Assert.Contains("<a href=\"#sweep-sync-async-rtt\">sweep sync-async-rtt</a>", dom);
    }
}
