using System.Globalization;
using System.Text.Json;
using PerfLab.Common;
using PerfLab.SutProcesses;
using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

// `perflab trace collect` and `perflab trace report` through the real CLI.
public sealed class TraceCommandTests
{
    [Fact]
    public async Task Report_MissingFile_ExitsWithUsageAndNoStackTrace()
    {
        var result = await PerfLabProcess.RunAsync("trace", "report", "/nonexistent/x.nettrace");

        Assert.Equal(2, result.ExitCode);
        Assert.Contains("/nonexistent/x.nettrace: no such file.", result.Stderr);
        Assert.DoesNotContain("   at ", result.Stderr);
    }

    [Fact]
    public async Task Report_FileThatIsNotANettrace_SaysSoWithUsageExitCode()
    {
        var file = Path.Combine(TestCaches.NewFolder(), "notes.nettrace");
        await File.WriteAllTextAsync(file, "these are not events");

        var result = await PerfLabProcess.RunAsync("trace", "report", file);

        Assert.Equal(2, result.ExitCode);
        Assert.Contains("is not a readable .nettrace file", result.Stderr);
        Assert.DoesNotContain("   at ", result.Stderr);
    }

    [Fact]
    public void Analyze_MissingFile_ThrowsUsageErrorForTheCaller()
    {
        var error = Assert.Throws<PerfLabException>(() => TraceAnalysis.Analyze("/nonexistent/y.nettrace"));

        Assert.Equal(ExitCode.Usage, error.ExitCode);
        Assert.Equal("/nonexistent/y.nettrace: no such file.", error.Message);
    }

    [Fact]
    public async Task Report_Help_NamesEveryOption()
    {
        var result = await PerfLabProcess.RunAsync("trace", "report", "--help");

        Assert.Equal(0, result.ExitCode);
        Assert.All(["--app-namespace", "--app-module", "--requests", "--top", "--out", "<file>"], o => Assert.Contains(o, result.Stdout));
    }

    [Fact]
    public async Task CollectThenReport_LockEndpoint_ReportNamesTheLockAndWritesStackFiles()
    {
        var folder = TestCaches.NewFolder();
        var trace = Path.Combine(folder, "lock.nettrace");
        var launch = SutLaunch.Default(connectionString: null) with { LogFile = Path.Combine(folder, "sut.log") };
        await using var sut = await SutProcess.StartAsync(launch);
        using var client = sut.CreateClient(TimeSpan.FromSeconds(30));
        using var stop = new CancellationTokenSource();
        var loops = Enumerable.Range(0, 8).Select(_ => LoopAsync(client, "/diagnostics/lock?ms=2", stop.Token)).ToList();

        var collect = await PerfLabProcess.RunAsync("trace", "collect", sut.Pid.ToString(CultureInfo.InvariantCulture),
            "-d", "3s", "--out", trace);
        await stop.CancelAsync();
        await Task.WhenAll(loops);
        const int requests = 500;
        var report = await PerfLabProcess.RunAsync("trace", "report", trace, "--requests", requests.ToString(CultureInfo.InvariantCulture),
            "--top", "5", "--out", folder);

        Assert.True(collect.ExitCode == 0, collect.ToString());
        Assert.True(report.ExitCode == 0, report.ToString());
        Assert.Matches(@"\n  CulpritsApi\.\S+ +\d+ x +\d+\.\d ms blocked \(\d+\.\d{3} ms/request\)", report.Stdout);
        // The finding's strength rests on how often the lock collided, which a starved machine lowers (67-102 contentions
        // alone, 38-53 beside three busy loops, in Release): its rule is TraceFindingsTests'; here it must agree.
        var finding = System.Text.RegularExpressions.Regex.Match(report.Stdout,
            @"\[(strong|weak)\] lock taken in CulpritsApi\.\S+\(\): (\d+) contentions, (\d+\.\d+) ms blocked per request");
        Assert.True(finding.Success, report.Stdout);
        var strongByCount = int.Parse(finding.Groups[2].Value, CultureInfo.InvariantCulture) >= TraceFindings.StrongContentions
            && double.Parse(finding.Groups[3].Value, CultureInfo.InvariantCulture) * requests >= TraceFindings.StrongBlockedMs;
        Assert.Equal(strongByCount ? "strong" : "weak", finding.Groups[1].Value);
        Assert.Matches(@"\n  App +\d+\.\d +\d+\.\d % +\d+\.\d{3}\n", report.Stdout);
        Assert.Matches(@"Heaviest CPU stacks \(5 of \d+\)", report.Stdout);
        Assert.Matches(@"\n +\d+ +\d+\.\d ms  \S.*CulpritsApi\.HoldLock", report.Stdout);
        var folded = await File.ReadAllLinesAsync(Path.Combine(folder, "lock.folded"));
        var foldedSamples = folded.Sum(l => long.Parse(l[(l.LastIndexOf(' ') + 1)..], CultureInfo.InvariantCulture));
        using var speedscope = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(folder, "lock.speedscope.json")));
        Assert.Equal(foldedSamples, speedscope.RootElement.GetProperty("profiles")[0].GetProperty("endValue").GetInt64());
        Assert.Contains(folded, l => l.Contains("CulpritsApi.HoldLock", StringComparison.Ordinal));
        var cpuSamples = long.Parse(ReportFigure(report.Stdout, @"(\d+) on-CPU samples"), CultureInfo.InvariantCulture);
        Assert.InRange(foldedSamples, cpuSamples * 0.95, cpuSamples);

        // An app outside the namespace given: its code is no component of its own, unless its module is named.
        var byNamespace = await PerfLabProcess.RunAsync("trace", "report", trace, "--app-namespace", "Not.This.App", "--out", folder);
        var byModule = await PerfLabProcess.RunAsync("trace", "report", trace, "--app-namespace", "Not.This.App", "--app-module", "PerfLab.Sut", "--out", folder);
        Assert.DoesNotMatch(@"\n  App +\d", byNamespace.Stdout);
        Assert.Matches(@"\n  App +\d+\.\d +\d+\.\d %", byModule.Stdout);
    }

    private static string ReportFigure(string text, string pattern) =>
        System.Text.RegularExpressions.Regex.Match(text, pattern).Groups[1].Value;

    private static async Task LoopAsync(HttpClient client, string path, CancellationToken ct)
    {
        while (!ct.IsCancellationRequested)
        {
            try
            {
                using var response = await client.GetAsync(path, ct);
            }
            catch (OperationCanceledException) when (ct.IsCancellationRequested)
            {
            }
        }
    }
}
