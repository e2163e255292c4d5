using System.Text.Json;
using PerfLab.Common;
using PerfLab.Reports;

namespace PerfLab.Tests.History;

/// <summary>`perflab history add` and `show` as a user runs them: real results folders, a real SQLite file, the CLI's own process.</summary>
public sealed class HistoryCommandTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-history-cli-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Fact]
    public async Task AddTwice_ThenShow_FindsTheStep_InTextJsonJunitAndHtml()
    {
        var folders = HistoryFixtures.Runs(12, stepAt: 10, step: 0.15, floor: _ => 3).Select((r, i) =>
        {
            var folder = Directory.CreateDirectory(Path.Combine(_dir.FullName, $"run-{i + 1:00}")).FullName;
            File.WriteAllText(Path.Combine(folder, ResultsJson.FileName), ResultsJson.Serialize(r));
            return folder;
        }).ToArray();
        var db = Path.Combine(_dir.FullName, "history.db");
        var (junit, html) = (Path.Combine(_dir.FullName, "history.xml"), Path.Combine(_dir.FullName, "history.html"));

        var add = await PerfLabProcess.RunAsync(["history", "add", .. folders[..11], "--history", db]);
        var again = await PerfLabProcess.RunAsync(["history", "add", folders[0], folders[11], "--history", db]);
        var show = await PerfLabProcess.RunAsync("history", "show", "api", "--metric", "cost", "--history", db, "--json",
            "--junit", junit, "--html", html);

        Assert.True(add.ExitCode == 0, add.ToString());
        Assert.Contains("history: " + db + ", 11 runs", add.Stdout, StringComparison.Ordinal);
        Assert.Contains("already in the history, skipped: " + folders[0], again.Stdout, StringComparison.Ordinal);
        Assert.Contains(", 12 runs", again.Stdout, StringComparison.Ordinal);
        // The step at run 10 is found once run 12 gives it three runs after: new, for the worse, so the exit is 5.
        Assert.True(show.ExitCode == (int)ExitCode.ThresholdsFailed, show.ToString());
        using var json = JsonDocument.Parse(show.Stdout);
        var series = Assert.Single(json.RootElement.GetProperty("series").EnumerateArray());
        Assert.Equal("cpu-per-request", series.GetProperty("metric").GetString());
        Assert.Equal(12, series.GetProperty("points").GetArrayLength());
        var change = Assert.Single(series.GetProperty("changePoints").EnumerateArray());
        Assert.Equal(10, change.GetProperty("run").GetInt32());
        Assert.Equal(HistoryFixtures.Commit(10), change.GetProperty("toCommit").GetString());
        Assert.True(change.GetProperty("isNew").GetBoolean());
        Assert.InRange(change.GetProperty("changePercent").GetDouble(), 12, 18);
        var suites = await Cli.JunitParser.ReadAsync(junit);
        var suite = Cli.JunitParser.Suite(suites, "api");
        Assert.Equal(1, suite.GetProperty("failures").GetInt32());
        var page = await File.ReadAllTextAsync(html);
        Assert.Contains("<svg class=\"history\"", page, StringComparison.Ordinal);
        Assert.Contains("change point at run 10, 09ccccc..0accccc: +", page, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Show_CorruptHistory_OneClearLine_Exit2()
    {
        var db = Path.Combine(_dir.FullName, "bad.db");
        await File.WriteAllTextAsync(db, "this is not a database, and it is long enough to hold a SQLite header's worth of bytes at least.");

        var show = await PerfLabProcess.RunAsync("history", "show", "--history", db);

        Assert.True(show.ExitCode == (int)ExitCode.Usage, show.ToString());
        Assert.StartsWith($"error: '{db}' is not a perflab history", show.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", show.Stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Run_WithACorruptHistory_RefusedBeforeAnythingStarts()
    {
        var db = Path.Combine(_dir.FullName, "bad-run.db");
        await File.WriteAllTextAsync(db, new string('x', 200));
        var output = Path.Combine(_dir.FullName, "never");

        var run = await PerfLabProcess.RunAsync("run", "sleep-vs-delay", "--profile", "smoke", "--history", db, "--out", output);

        Assert.True(run.ExitCode == (int)ExitCode.Usage, run.ToString());
        Assert.Contains("is not a perflab history", run.Stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(output));
        Assert.Equal(new string('x', 200), await File.ReadAllTextAsync(db));
    }
}
