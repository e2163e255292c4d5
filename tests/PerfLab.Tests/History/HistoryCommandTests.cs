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

    [Fact]
    public async Task AddWithStatedCommit_ShowOrdersByTheRepositorysGit_NotByStartTime()
    {
        var repo = Directory.CreateDirectory(Path.Combine(_dir.FullName, "repo")).FullName;
        var commits = await HistoryFixtures.GitRepositoryAsync(repo, 8);
        // Commit 8 measured first, commit 1 last: by start time the step from commit 5 would read as a drop.
        var folders = HistoryFixtures.Runs(8, stepAt: 5, step: 0.3, floor: _ => 1).Select((r, i) =>
        {
            var started = HistoryFixtures.Start.AddDays(8 - i);
            var commit = i < 7 ? commits[i][..12] : "e79a81e00000 (modified)";
            var run = r with
            {
                StartedAt = started, FinishedAt = started.AddMinutes(5), Provenance = r.Provenance with { Commit = commit },
            };
            var folder = Directory.CreateDirectory(Path.Combine(_dir.FullName, $"run-{i + 1}")).FullName;
            File.WriteAllText(Path.Combine(folder, ResultsJson.FileName), ResultsJson.Serialize(run));
            return folder;
        }).ToArray();
        var db = Path.Combine(_dir.FullName, "git.db");

        var add = await PerfLabProcess.RunAsync(["history", "add", .. folders[..7], "--history", db]);
        // Run 8's results.json names perflab's checkout; the commit of what it measured is stated (a hash this process's
        // folder does not know: kept, as results.json writes one, 12 digits).
        var stated = await PerfLabProcess.RunAsync("history", "add", folders[7], "--commit", commits[7], "--history", db);
        var show = await PerfLabProcess.RunAsync("history", "show", "--metric", "cost", "--history", db, "--repo", repo, "--json");
        var noCommit = await PerfLabProcess.RunAsync("run", "sleep-vs-delay", "--profile", "smoke", "--commit", "HEAD");

        Assert.True(add.ExitCode == 0 && stated.ExitCode == 0, add + "\n" + stated);
        Assert.Contains($"commit {commits[7][..7]} (stated by --commit; results.json names e79a81e (modified))", stated.Stdout,
            StringComparison.Ordinal);
        Assert.True(show.ExitCode is 0 or (int)ExitCode.ThresholdsFailed, show.ToString());
        using var json = JsonDocument.Parse(show.Stdout);
        Assert.Equal("git", json.RootElement.GetProperty("order").GetString());
        var series = Assert.Single(json.RootElement.GetProperty("series").EnumerateArray());
        Assert.Equal(commits.Select(c => c[..12]),
            series.GetProperty("points").EnumerateArray().Select(p => p.GetProperty("commit").GetString()));
        var change = Assert.Single(series.GetProperty("changePoints").EnumerateArray());
        Assert.Equal(commits[4][..12], change.GetProperty("toCommit").GetString());
        Assert.Equal("worse", change.GetProperty("verdict").GetString());
        Assert.True(noCommit.ExitCode == (int)ExitCode.Usage, noCommit.ToString());
        Assert.StartsWith("error: --commit names the commit a history records: give --history too", noCommit.Stderr,
            StringComparison.Ordinal);
    }

    [Fact]
    public async Task Compare_WithACorruptHistory_RefusedBeforeAnythingStarts()
    {
        var db = Path.Combine(_dir.FullName, "bad-compare.db");
        await File.WriteAllTextAsync(db, new string('y', 200));
        var output = Path.Combine(_dir.FullName, "never");

        var compare = await PerfLabProcess.RunAsync("compare", "--command", "sleep 600", "--url", "/", "--variant", "a", "--variant", "b",
            "--profile", "smoke", "--invocations", "2", "--history", db, "--out", output);

        Assert.True(compare.ExitCode == (int)ExitCode.Usage, compare.ToString());
        Assert.Contains("is not a perflab history", compare.Stderr, StringComparison.Ordinal);
        Assert.False(Directory.Exists(output));
        Assert.Equal(new string('y', 200), await File.ReadAllTextAsync(db));
    }
}
