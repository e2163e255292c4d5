using System.Globalization;
using System.Text.RegularExpressions;
using System.Xml;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Reports;

/// <summary>
/// report.md's charts: SVG files in charts/ beside it, each a standalone image (its namespace, a view box, its text,
/// no script) that carries the figures of the result it was drawn from, at the positions its own axis gives them.
/// </summary>
public sealed partial class ChartFileTests : IDisposable
{
    private const string SvgNs = "http://www.w3.org/2000/svg";
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-charts-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Fact]
    public void WriteAll_SampleWithSweep_WritesEveryLinkedChartAsStandaloneSvg()
    {
        var written = ReportWriters.WriteAll(SweepFixtures.Sample(), _dir.FullName);

        var markdown = File.ReadAllText(Path.Combine(_dir.FullName, "report.md"));
        var links = ImageLink().Matches(markdown).Select(m => m.Groups[1].Value).ToList();
        Assert.Equal(
            ["charts/serializer-change.svg", "charts/serializer-timeline.svg", "charts/sync-over-async-change.svg",
             "charts/sync-over-async-timeline.svg", "charts/sweep-sync-async-rtt.svg"],
            links);
        var files = Directory.GetFiles(Path.Combine(_dir.FullName, "charts")).Select(f => "charts/" + Path.GetFileName(f)).Order();
        Assert.Equal(links.Order(), files);
        Assert.Equal(3 + links.Count, written.Count);
        foreach (var link in links)
        {
            var svg = Load(link);
            Assert.Equal(("svg", SvgNs), (svg.DocumentElement!.LocalName, svg.DocumentElement.NamespaceURI));
            Assert.Matches(@"^0 0 \d+ \d+$", svg.DocumentElement.GetAttribute("viewBox"));
            Assert.Empty(svg.GetElementsByTagName("script"));
            Assert.DoesNotContain(Attributes(svg), a => a.Name.StartsWith("on", StringComparison.OrdinalIgnoreCase));
            Assert.True(svg.GetElementsByTagName("text").Count >= 3, $"{link} has little text");
        }
    }

    [Fact]
    public void ChangeChart_SerializerDecidedByCost_PlacesEveryIntervalEndWhereItsAxisSays()
    {
        ReportWriters.WriteAll(ReportFixtures.Sample(), _dir.FullName, ReportWriters.ForFormats("md"));
        var svg = Load("charts/serializer-change.svg");

        // Rows in the summary's order: each variant's deciding figure (cost), then RPS beside it.
        var labels = Texts(svg).Where(t => t.GetAttribute("text-anchor") == "end").Select(t => t.InnerText).ToList();
        Assert.Equal(
            ["system-text-json: CPU per request", "RPS (beside)", "system-text-json-sourcegen: CPU per request", "RPS (beside)"], labels);
        var figures = Texts(svg).Where(t => t.GetAttribute("class") == "figures").Select(t => t.InnerText).ToList();
        Assert.Equal(
            ["-12.0 % [-15.0, -9.0] better", "+22.1 % [+15.3, +29.4]", "-14.2 % (no interval) inconclusive", "+29.7 % (no interval)"],
            figures);

        // The axis from its own tick labels ("+10 %" at x = ...): a change maps to x linearly.
        var ticks = Texts(svg).Where(t => t.GetAttribute("class") == "tick")
            .Select(t => (Value: double.Parse(t.InnerText.Replace(" %", "", StringComparison.Ordinal), CultureInfo.InvariantCulture),
                X: X(t, "x")))
            .ToList();
        Assert.True(ticks.Count >= 3, $"{ticks.Count} ticks");
        double ChangeAt(double x) => ticks[0].Value + ((x - ticks[0].X) * (ticks[^1].Value - ticks[0].Value) / (ticks[^1].X - ticks[0].X));
        var intervals = Elements(svg, "line").Where(l => l.GetAttribute("class") == "interval").ToList();
        Assert.Equal(2, intervals.Count); // the two figures without an interval draw none
        Assert.Equal(-15.0, ChangeAt(X(intervals[0], "x1")), 1);
        Assert.Equal(-9.0, ChangeAt(X(intervals[0], "x2")), 1);
        Assert.Equal(15.3, ChangeAt(X(intervals[1], "x1")), 1);
        Assert.Equal(29.4, ChangeAt(X(intervals[1], "x2")), 1);
        var changes = Elements(svg, "rect").Where(r => r.GetAttribute("class") == "change").Select(r => ChangeAt(X(r, "x") + 4)).ToList();
        Assert.Equal([-12.0, 22.1, -14.2, 29.7], changes.Select(c => Math.Round(c, 1)));
        var zero = Elements(svg, "line").Single(l => l.GetAttribute("class") == "zero");
        Assert.Equal(0, ChangeAt(X(zero, "x1")), 1);
        // The deciding row is drawn in its verdict's colour (better: the HTML badge's green), the row beside it in grey.
        Assert.Equal(["#1a7f37", "#8c959f"], intervals.Select(l => l.GetAttribute("stroke")));
    }

    [Fact]
    public void SweepChart_RttSweep_DrawsEachChangeOnItsWhiskerAtItsValue()
    {
        var sweep = SweepFixtures.Sweep();
        var svg = new XmlDocument();
        svg.LoadXml(ChartFiles.Sweep(sweep).Svg);

        var tickTexts = Texts(svg).Where(t => t.GetAttribute("class") == "tick").Select(t => t.InnerText);
        Assert.Equal(sweep.Values.Select(v => ConditionNames.Value(ConditionKind.DatabaseRtt, v)), tickTexts);
        // Four values with a change per variant (5 ms was not run): a dot and a whisker each.
        var dots = Elements(svg, "circle").ToList();
        var whiskers = Elements(svg, "line").Where(l => l.GetAttribute("class") == "whisker").ToList();
        Assert.Equal(8, dots.Count);
        Assert.Equal(8, whiskers.Count);
        // async at 0 ms: -10 % on [-14, -6], the dot halfway down its whisker (y grows downwards) and below zero.
        var (dot, whisker) = (dots[0], whiskers[0]);
        Assert.Equal("0 ms: -10.0 % [-14.0, -6.0] worse", dot.InnerText);
        var (low, high, y) = (X(whisker, "y1"), X(whisker, "y2"), X(dot, "cy"));
        Assert.Equal(0.5, (low - y) / (low - high), 2);
        Assert.Equal(X(dot, "cx"), X(whisker, "x1"));
        // async at 2 ms, +12 % on [+8, +16], is above -10 % at 0 ms by 22/8 of the 8-point whisker's length.
        Assert.InRange((y - X(dots[3], "cy")) / (X(whiskers[3], "y1") - X(whiskers[3], "y2")), 2.73, 2.77);
    }

    [Fact]
    public void TimelineChart_SampleSerializer_DrawsOneLineOfElevenSecondsPerVariant()
    {
        var experiment = ReportFixtures.Sample().Experiments[0];
        var svg = new XmlDocument();
        svg.LoadXml(ChartFiles.Timeline(experiment)!.Svg);

        var lines = Elements(svg, "polyline").ToList();
        Assert.Equal(experiment.Variants.Count, lines.Count);
        Assert.All(lines, l => Assert.Equal(11, l.GetAttribute("points").Split(' ').Length));
        Assert.Equal(experiment.Variants, Texts(svg).Select(t => t.InnerText).Where(experiment.Variants.Contains));
    }

    private XmlDocument Load(string relative)
    {
        var svg = new XmlDocument();
        svg.Load(Path.Combine(_dir.FullName, relative));
        return svg;
    }

    private static IEnumerable<XmlElement> Elements(XmlDocument svg, string name) => svg.GetElementsByTagName(name).OfType<XmlElement>();

    private static IEnumerable<XmlElement> Texts(XmlDocument svg) => Elements(svg, "text");

    private static IEnumerable<XmlAttribute> Attributes(XmlDocument svg) =>
        svg.GetElementsByTagName("*").OfType<XmlElement>().SelectMany(e => e.Attributes.OfType<XmlAttribute>());

    private static double X(XmlElement element, string attribute) =>
        double.Parse(element.GetAttribute(attribute), CultureInfo.InvariantCulture);

    [GeneratedRegex(@"!\[[^\]]*\]\(([^)]+)\)")]
    private static partial Regex ImageLink();
}
