using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Micro;

namespace PerfLab.Tests.Micro;

public sealed class MicroFilterTests
{
    private static readonly string[] Available =
    [
        "PerfLab.Micro.IndexOfAnyBenchmarks.IndexOfAny_String",
        "PerfLab.Micro.IndexOfAnyBenchmarks.IndexOfAny_Span_Two_Chars",
        "PerfLab.Micro.CachedTaskBenchmarks.GetTask",
        "PerfLab.Micro.CachedTaskBenchmarks.GetCachedTask",
    ];

    [Fact]
    public void Select_NoFilter_ChoosesEverything() =>
        Assert.Equal(Available, MicroFilter.Select(Available, []));

    [Fact]
    public void Select_GlobOnClassAndMethod_IsCaseInsensitive() =>
        Assert.Equal([Available[2], Available[3]], MicroFilter.Select(Available, ["cachedtask*.get*"]));

    [Fact]
    public void Select_GlobOnFullName_Matches() =>
        Assert.Equal([Available[0]], MicroFilter.Select(Available, ["PerfLab.Micro.*_String"]));

    [Fact]
    public void Select_PlainWord_MatchesNamesContainingIt() =>
        Assert.Equal([Available[3]], MicroFilter.Select(Available, ["GetCached"]));

    [Fact]
    public void Select_SeveralFilters_ChoosesTheUnion() =>
        Assert.Equal([Available[1], Available[2]], MicroFilter.Select(Available, ["Two_Chars", "*.GetTask"]));

    [Fact]
    public void WithBaselines_NonBaselineChosen_AddsItsTablesBaselineInListOrder() =>
        Assert.Equal([Available[2], Available[3]],
            MicroFilter.WithBaselines([Available[3]], Available, SeedTables.All));

    [Fact]
    public void WithBaselines_BaselineAlreadyChosen_AddsNothing() =>
        Assert.Equal([Available[0], Available[1]],
            MicroFilter.WithBaselines([Available[0], Available[1]], Available, SeedTables.All));

    [Fact]
    public void NothingMatches_ListsEveryBenchmarkByClassAndMethod()
    {
        Assert.Empty(MicroFilter.Select(Available, ["nope"]));

        var message = MicroFilter.NothingMatches(["nope"], Available);

        Assert.StartsWith("no benchmark matches 'nope'.", message);
        foreach (var name in Available)
        {
            Assert.Contains("  " + MicroFilter.ShortName(name), message);
        }
    }

    // The real command, as a user runs it: it builds bench/PerfLab.Micro (Release) and asks BenchmarkDotNet for its
    // list, but runs no benchmark.
    [Fact]
    public async Task MicroCommand_FilterMatchingNothing_PrintsTheBenchmarksAndExitsUsage()
    {
        using var cts = new CancellationTokenSource(TimeSpan.FromMinutes(5));
        var info = PerfLabProcess.StartInfo(null, "micro", "no-benchmark-is-called-this");
        info.WorkingDirectory = Path.GetTempPath(); // perflab finds its source tree from anywhere
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync(cts.Token);
        var stderr = process.StandardError.ReadToEndAsync(cts.Token);
        try
        {
            await process.WaitForExitAsync(cts.Token);
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
            }
        }

        var errors = await stderr;
        Assert.Equal((int)ExitCode.Usage, process.ExitCode);
        Assert.Contains("error: no benchmark matches 'no-benchmark-is-called-this'", errors);
        foreach (var table in SeedTables.All)
        {
            foreach (var row in table.Rows)
            {
                Assert.Contains($"  {table.Type}.{row.Method}", errors);
            }
        }
        Assert.Equal("", await stdout);
    }
}
