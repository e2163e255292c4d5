using System.Diagnostics;
using System.IO.Compression;
using System.Text.RegularExpressions;
using PerfLab.Reports;
using Xunit.Abstractions;

namespace PerfLab.Tests.Reports;

// report.html opened the way a user opens it: from disk in a real browser with no network, its charts checked by the
// page's own marker (charts drawn onto non-blank canvases) and by the pixels of a screenshot kept as an artifact.
[Collection(ChromiumCollection.Name)]
public sealed partial class HtmlReportTests(ITestOutputHelper output)
{
    private const string Chromium = "/usr/bin/chromium";

    // The first variant's bar colour in report.js's palette (#4e79a7).
    private static readonly (int R, int G, int B) _firstVariantColor = (0x4e, 0x79, 0xa7);

    [Fact]
    public async Task HtmlReport_OpenedInHeadlessChromium_DrawsEveryChart()
    {
        var artifacts = Path.Combine(AppContext.BaseDirectory, "TestResults", "html-report");
        Directory.CreateDirectory(artifacts);
        var html = ReportWriters.WriteAll(ReportFixtures.Sample(), artifacts, ReportWriters.ForFormats("html")).Single();
        var screenshot = Path.Combine(artifacts, "report.png");
        File.Delete(screenshot);

        // The virtual-time budget lets the flame graphs' transitions (timers) finish before the DOM is printed.
        var dom = await RunChromiumAsync("--virtual-time-budget=3000", "--dump-dom", new Uri(html).AbsoluteUri);
        var screenshotLog = await RunChromiumAsync($"--screenshot={screenshot}", new Uri(html).AbsoluteUri);
        output.WriteLine($"report: {html}");
        output.WriteLine($"screenshot: {screenshot}");

        var body = BodyTag().Match(dom);
        Assert.True(body.Success, "chromium printed no <body> tag:\n" + dom[..Math.Min(dom.Length, 2000)]);
        Assert.DoesNotContain("data-chart-error", body.Value);
        var total = int.Parse(Attribute(body.Value, "data-charts-total"), System.Globalization.CultureInfo.InvariantCulture);
        var rendered = int.Parse(Attribute(body.Value, "data-charts-rendered"), System.Globalization.CultureInfo.InvariantCulture);
        // Two experiments: RPS and mean-latency bars each, four timelines each, the run-order chart each; and the
        // where-the-time-goes stacked bars of each (both carry evidence).
        Assert.Equal(16, total);
        Assert.Equal(total, rendered);
        Assert.Matches("<div class=\"charts runorder\" data-experiment=\"serializer\"><div class=\"chart\"><h4>All-scenario RPS of every run, in run order", dom);
        Assert.Matches("<div class=\"charts breakdown\" data-experiment=\"serializer\"><div class=\"chart\"><h4>Where the time goes", dom);
        AssertFlameGraphs(body.Value, dom);

        Assert.True(File.Exists(screenshot), "chromium wrote no screenshot:\n" + screenshotLog);
        var (width, height, pixels) = Png.Decode(File.ReadAllBytes(screenshot));
        Assert.Equal(1280, width);
        var barPixels = 0;
        var distinct = new HashSet<int>();
        for (var i = 0; i < width * height; i++)
        {
            var (r, g, b) = (pixels[i * 3], pixels[(i * 3) + 1], pixels[(i * 3) + 2]);
            distinct.Add((r << 16) | (g << 8) | b);
            if (Math.Abs(r - _firstVariantColor.R) <= 3 && Math.Abs(g - _firstVariantColor.G) <= 3 && Math.Abs(b - _firstVariantColor.B) <= 3)
            {
                barPixels++;
            }
        }
        Assert.True(distinct.Count > 50, $"the screenshot is nearly flat: {distinct.Count} colours");
        Assert.True(barPixels > 1000, $"the screenshot shows {barPixels} pixels of the first variant's bar colour; the bars were not drawn");
    }

    // Serializer: three variants with stacks, two differentials against newtonsoft; sync-over-async: two and one.
    private static void AssertFlameGraphs(string body, string dom)
    {
        Assert.DoesNotContain("data-flamegraph-error", body);
        Assert.Equal("8", Attribute(body, "data-flamegraphs-total"));
        Assert.Equal("8", Attribute(body, "data-flamegraphs-rendered"));
        var graphs = FlameGraph().Matches(dom);
        Assert.Equal(8, graphs.Count);
        Assert.Equal(3, graphs.Count(g => g.Groups["kind"].Value == "differential"));
        var changes = new List<(int R, int B)>();
        foreach (Match graph in graphs)
        {
            var svg = graph.Groups["svg"].Value;
            var frames = Regex.Count(svg, "<g [^>]*class=\"frame\"");
            var rects = Regex.Count(svg, "<rect ");
            // The smallest graph (sync-over-async's baseline) has the root, three Kestrel frames, the action and two leaves.
            Assert.True(frames >= 7, $"{graph.Groups["variant"].Value} ({graph.Groups["kind"].Value}): {frames} frames drawn");
            Assert.Equal(frames, rects);
            // Every frame drawn with a width (d3-flame-graph sets it in a transition, finished by the time of the dump).
            Assert.Equal(rects, Regex.Count(svg, "<rect [^>]*width=\"[1-9]"));
            Assert.Equal(graph.Groups["frames"].Value, frames.ToString(System.Globalization.CultureInfo.InvariantCulture));
            if (graph.Groups["kind"].Value == "differential")
            {
                // Coloured by the change of share (grey: unchanged, red: grew, blue: shrank, orange: new), not a flame graph's warm hues.
                var fills = Regex.Matches(svg, @"fill=""rgb\((\d+),(\d+),(\d+)\)""").Select(m => (R: int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture), B: int.Parse(m.Groups[3].Value, System.Globalization.CultureInfo.InvariantCulture))).ToList();
                Assert.Equal(frames, fills.Count);
                Assert.Contains(fills, f => f != (220, 220));
                changes.AddRange(fills);
            }
        }
        Assert.Contains(changes, f => f.R == 220 && f.B < 220);
        Assert.Contains(changes, f => f.R < 220 && f.B == 220);
    }

    [Fact]
    public void HtmlReport_SampleRun_IsSelfContainedAndForbidsNetworkRequests()
    {
        using var writer = new StringWriter();
        new HtmlReportWriter().Write(ReportFixtures.Sample(), writer);
        var html = writer.ToString();

        Assert.Contains("Content-Security-Policy\" content=\"default-src 'none';", html);
        Assert.Empty(ExternalReference().Matches(html));
        Assert.DoesNotContain("sourceMappingURL", html);
        Assert.Contains("Chart.js v", html);
        Assert.Contains("d3js.org v7.9.2", html);
        Assert.Contains("flamegraph", html);
        // The same tables as the Markdown, escaped.
        Assert.Contains("<th class=\"num\">all (RPS)</th>", html);
        Assert.Contains("408.4 [392.1–424.7]", html);
        Assert.Contains("our &lt;b&gt;difference&lt;/b&gt;", html);
        Assert.DoesNotContain("our <b>difference", html);
        // The claims' legend explains every value the outcome column can show, as the Markdown's does.
        Assert.Contains("<em>inconclusive</em> when the interval is too wide to tell", html);
        Assert.Contains("<td>inconclusive</td>", html);
    }

    private async Task<string> RunChromiumAsync(params string[] args)
    {
        if (!File.Exists(Chromium))
        {
            Assert.Fail($"install chromium: {Chromium} is missing (Debian: apt-get install chromium; `dotnet test` installs it as root: scripts/setup.sh --for-tests).");
        }
        var profile = Directory.CreateTempSubdirectory("perflab-chromium-");
        try
        {
            var start = new ProcessStartInfo(Chromium)
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
            };
            foreach (var arg in new[]
                     {
                         "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                         "--force-device-scale-factor=1", $"--user-data-dir={profile.FullName}",
                     }.Concat(args.Any(a => a.StartsWith("--window-size=", StringComparison.Ordinal)) ? [] : ["--window-size=1280,2000"]).Concat(args))
            {
                start.ArgumentList.Add(arg);
            }

            using var process = Process.Start(start)!;
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(90));
            var stdout = process.StandardOutput.ReadToEndAsync(timeout.Token);
            var stderr = process.StandardError.ReadToEndAsync(timeout.Token);
            try
            {
                await process.WaitForExitAsync(timeout.Token);
                return await stdout + await stderr;
            }
            catch (OperationCanceledException)
            {
                process.Kill(entireProcessTree: true);
                throw new TimeoutException("chromium did not finish within 90 s");
            }
        }
        finally
        {
            try
            {
                profile.Delete(recursive: true);
            }
            catch (IOException)
            {
                // A child process may still hold a file for a moment; the temp folder is not worth failing over.
            }
        }
    }

    private static string Attribute(string tag, string name)
    {
        var match = Regex.Match(tag, name + "=\"([^\"]*)\"");
        Assert.True(match.Success, $"<body> has no {name}: {tag}");
        return match.Groups[1].Value;
    }

    [GeneratedRegex("<div class=\"flamegraph\" data-kind=\"(?<kind>[a-z]+)\" data-variant=\"(?<variant>[^\"]+)\" data-frames=\"(?<frames>\\d+)\"[^>]*>(?<svg><svg.*?</svg>)</div>", RegexOptions.Singleline)]
    private static partial Regex FlameGraph();

    [GeneratedRegex("<body[^>]*>")]
    private static partial Regex BodyTag();

    [GeneratedRegex("""(src|href|action)\s*=\s*["']?\s*(https?:|//|file:)""", RegexOptions.IgnoreCase)]
    private static partial Regex ExternalReference();

    // Enough of PNG for a browser screenshot: 8-bit RGB or RGBA, not interlaced. Returns RGB bytes.
    private static class Png
    {
        public static (int Width, int Height, byte[] Rgb) Decode(byte[] file)
        {
            var pos = 8;
            int width = 0, height = 0, colorType = 0;
            using var idat = new MemoryStream();
            while (pos < file.Length)
            {
                var length = (file[pos] << 24) | (file[pos + 1] << 16) | (file[pos + 2] << 8) | file[pos + 3];
                var type = System.Text.Encoding.ASCII.GetString(file, pos + 4, 4);
                var data = file.AsSpan(pos + 8, length);
                if (type == "IHDR")
                {
                    width = (data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3];
                    height = (data[4] << 24) | (data[5] << 16) | (data[6] << 8) | data[7];
                    Assert.Equal(8, data[8]);
                    colorType = data[9];
                    Assert.Equal(0, data[12]);
                }
                else if (type == "IDAT")
                {
                    idat.Write(data);
                }
                pos += 12 + length;
            }
            var channels = colorType switch { 2 => 3, 6 => 4, _ => throw new InvalidDataException($"PNG colour type {colorType}") };
            idat.Position = 0;
            using var inflated = new MemoryStream();
            using (var z = new ZLibStream(idat, CompressionMode.Decompress))
            {
                z.CopyTo(inflated);
            }
            var raw = inflated.ToArray();
            var stride = width * channels;
            var previous = new byte[stride];
            var current = new byte[stride];
            var rgb = new byte[width * height * 3];
            for (var y = 0; y < height; y++)
            {
                var filter = raw[y * (stride + 1)];
                Array.Copy(raw, (y * (stride + 1)) + 1, current, 0, stride);
                for (var x = 0; x < stride; x++)
                {
                    int a = x >= channels ? current[x - channels] : 0;
                    int b = previous[x];
                    int c = x >= channels ? previous[x - channels] : 0;
                    current[x] = (byte)(current[x] + filter switch
                    {
                        0 => 0,
                        1 => a,
                        2 => b,
                        3 => (a + b) / 2,
                        4 => Paeth(a, b, c),
                        _ => throw new InvalidDataException($"PNG filter {filter}"),
                    });
                }
                for (var x = 0; x < width; x++)
                {
                    rgb[((y * width) + x) * 3] = current[x * channels];
                    rgb[(((y * width) + x) * 3) + 1] = current[(x * channels) + 1];
                    rgb[(((y * width) + x) * 3) + 2] = current[(x * channels) + 2];
                }
                (previous, current) = (current, previous);
            }
            return (width, height, rgb);
        }

        private static int Paeth(int a, int b, int c)
        {
            var p = a + b - c;
            var pa = Math.Abs(p - a);
            var pb = Math.Abs(p - b);
            var pc = Math.Abs(p - c);
            return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
        }
    }
}

// Chromium takes both cores of the CI machine for a few seconds; alone, it does not skew the timing tests of others.
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ChromiumCollection
{
    public const string Name = "Chromium (not parallel)";
}
