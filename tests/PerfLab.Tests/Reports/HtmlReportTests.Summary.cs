using System.Text.RegularExpressions;
using PerfLab.Reports;

namespace PerfLab.Tests.Reports;

public sealed partial class HtmlReportTests
{
    // Each verdict's badge colour in report.css: the screenshot shows a verdict where its colour is.
    private static readonly Dictionary<string, (int R, int G, int B)> _verdictColors = new()
    {
        ["better"] = (0x1a, 0x7f, 0x37),
        ["worse"] = (0xcf, 0x22, 0x2e),
        ["equivalent"] = (0x09, 0x69, 0xda),
        ["inconclusive"] = (0x82, 0x50, 0xdf),
    };

    [Fact]
    public async Task HtmlReport_FirstScreenInChromium_ShowsEveryVerdictOfTheSummary()
    {
        var artifacts = Path.Combine(AppContext.BaseDirectory, "TestResults", "html-summary");
        Directory.CreateDirectory(artifacts);
        var html = ReportWriters.WriteAll(ReportFixtures.Sample(), artifacts, ReportWriters.ForFormats("html")).Single();
        var screenshot = Path.Combine(artifacts, "first-screen.png");
        File.Delete(screenshot);

        var log = await RunChromiumAsync("--window-size=1280,800", $"--screenshot={screenshot}", new Uri(html).AbsoluteUri);
        var dom = await RunChromiumAsync("--window-size=1280,800", "--virtual-time-budget=3000", "--dump-dom", new Uri(html).AbsoluteUri);
        output.WriteLine($"screenshot: {screenshot}");

        // Nothing but the title comes before the summary, and the summary holds one badge per variant against its baseline.
        var main = dom[dom.IndexOf("<main>", StringComparison.Ordinal)..];
        Assert.Matches(@"^<main>\s*<h1>PerfLab report</h1>\s*<section id=""summary"">", main);
        var summary = main[..main.IndexOf("</section>", StringComparison.Ordinal)];
        var badges = BadgeVerdict().Matches(summary).Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(["better", "inconclusive", "worse", "equivalent"], badges);

        // The first screen (1280 x 800) shows every one of them: each badge colour covers a badge's worth of pixels.
        Assert.True(File.Exists(screenshot), "chromium wrote no screenshot:\n" + log);
        var (width, height, pixels) = Png.Decode(File.ReadAllBytes(screenshot));
        Assert.Equal((1280, 800), (width, height));
        foreach (var verdict in badges.Distinct())
        {
            var (r, g, b) = _verdictColors[verdict];
            var count = 0;
            for (var i = 0; i < width * height; i++)
            {
                if (Math.Abs(pixels[i * 3] - r) <= 4 && Math.Abs(pixels[(i * 3) + 1] - g) <= 4 && Math.Abs(pixels[(i * 3) + 2] - b) <= 4)
                {
                    count++;
                }
            }
            output.WriteLine($"{verdict}: {count} pixels of its badge colour on the first screen");
            Assert.True(count >= 300, $"the '{verdict}' badge is not on the first screen ({count} pixels of its colour)");
        }
    }

    [GeneratedRegex(@"<span class=""verdict ([a-z]+)"">")]
    private static partial Regex BadgeVerdict();
}
