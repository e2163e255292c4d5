using PerfLab.Common;
using PerfLab.History;
using PerfLab.Results;

namespace PerfLab.Tests.History;

/// <summary>
/// A history's runs in their commits' git order (a real repository of empty commits), and the fall-back to start times
/// with the reason said; the commit `--commit` states, resolved by git.
/// </summary>
public sealed class HistoryOrderTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-history-order-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Fact]
    public async Task Arrange_CommitsMeasuredOutOfOrder_GitOrder_RunsOfOneCommitTogether_StepNamesItsCommit()
    {
        var commits = await RepositoryAsync(8);
        // Measured out of order (as a bisection or a late re-run would), commit 2 twice, once from a modified tree;
        // from commit 5 on the figure is 30 % higher.
        int[] measured = [1, 5, 2, 6, 3, 7, 4, 8, 2];
        var points = measured.Select((c, i) => Point(i == 8 ? commits[c - 1] + " (modified)" : commits[c - 1], i,
            (c >= 5 ? 130 : 100) + (i % 3 * 0.5))).ToList();

        var (ordered, order) = await HistoryOrder.ArrangeAsync(points, _dir.FullName, CancellationToken.None);
        var byGit = HistorySeries.Analyze(ordered, null, new EDivisive.Options()).Single();
        var byTime = HistorySeries.Analyze(points, null, new EDivisive.Options()).Single();

        Assert.True(order.ByGit, order.Said);
        Assert.StartsWith("by commit in git order", order.Said, StringComparison.Ordinal);
        Assert.Equal(new[] { 1, 2, 2, 3, 4, 5, 6, 7, 8 }, ordered.Select(p => commits.IndexOf(GitCommits.HashOf(p.Run.Commit)!) + 1));
        // Runs of one commit keep their start order: the clean run of commit 2 before the later modified one.
        Assert.Equal(commits[1], ordered[1].Run.Commit);
        Assert.Equal(commits[1] + " (modified)", ordered[2].Run.Commit);
        var change = Assert.Single(byGit.ChangePoints);
        Assert.Equal((commits[3], commits[4]), (change.FromCommit, change.ToCommit));
        Assert.InRange(change.ChangePercent, 25, 35);
        Assert.DoesNotContain(byTime.ChangePoints, c => c.ToCommit == commits[4]);
    }

    [Fact]
    public async Task Arrange_WhenGitCannotPlaceEveryRun_StartTimeOrder_AndWhy()
    {
        var commits = await RepositoryAsync(2);
        List<StoredPoint> foreign = [Point(commits[1], 0, 1), Point("0123456789ab", 1, 1), Point(commits[0], 2, 1)];
        List<StoredPoint> unnamed = [Point(commits[1], 0, 1), Point("unknown", 1, 1)];
        var outside = Directory.CreateTempSubdirectory("perflab-history-nogit-");

        try
        {
            var notThere = await HistoryOrder.ArrangeAsync(foreign, _dir.FullName, CancellationToken.None);
            var noHash = await HistoryOrder.ArrangeAsync(unnamed, _dir.FullName, CancellationToken.None);
            var noGit = await HistoryOrder.ArrangeAsync(foreign[..1], outside.FullName, CancellationToken.None);

            Assert.Equal(foreign, notThere.Points);
            Assert.False(notThere.Order.ByGit);
            Assert.Contains("not every run's commit is in the git repository", notThere.Order.Said, StringComparison.Ordinal);
            Assert.Equal("by start time, not git order: 'unknown' names no git commit", noHash.Order.Said);
            Assert.EndsWith("is not inside a git repository", noGit.Order.Said, StringComparison.Ordinal);
        }
        finally
        {
            outside.Delete();
        }
    }

    [Fact]
    public async Task ResolveStated_RefBecomesItsHash_UnknownHashKept_AnythingElseRefused()
    {
        var commits = await RepositoryAsync(2);

        Assert.Equal(commits[1], await GitCommits.ResolveStatedAsync("HEAD", _dir.FullName, CancellationToken.None));
        Assert.Equal(commits[0], await GitCommits.ResolveStatedAsync("HEAD~1", _dir.FullName, CancellationToken.None));
        Assert.Equal("deadbeef0123", await GitCommits.ResolveStatedAsync("DEADBEEF0123456789", _dir.FullName, CancellationToken.None));
        var refused = await Assert.ThrowsAsync<PerfLabException>(() =>
            GitCommits.ResolveStatedAsync("no-such-branch", _dir.FullName, CancellationToken.None));
        Assert.Equal(ExitCode.Usage, refused.ExitCode);
        Assert.StartsWith("--commit 'no-such-branch' is not a commit", refused.Message, StringComparison.Ordinal);
    }

    private async Task<List<string>> RepositoryAsync(int count) =>
        [.. (await HistoryFixtures.GitRepositoryAsync(_dir.FullName, count)).Select(c => c[..12])];

    /// <summary>Run <paramref name="index"/> (its start hour) of <paramref name="commit"/>, its figure <paramref name="value"/>.</summary>
    private static StoredPoint Point(string commit, int index, double value) => new(
        new HistoryRun($"run-{index}", HistoryFixtures.Start.AddHours(index), commit, "Test CPU, 2 cores, Debian", "10.0.0", "smoke",
            null, "synthetic"),
        new HistoryPoint("api", "app", Metric.AllScenarios, Metrics.CpuPerRequest.Key, value, null, null, 1, null, null));
}
