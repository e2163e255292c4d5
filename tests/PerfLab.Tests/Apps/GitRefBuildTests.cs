using PerfLab.Apps;

namespace PerfLab.Tests.Apps;

/// <summary>A variant's git ref: built in a worktree of its own, from the commit asked, once per commit.</summary>
public sealed class GitRefBuildTests : IDisposable
{
    private readonly string _repo = Path.Combine(Path.GetTempPath(), "perflab-gitref-" + Guid.NewGuid().ToString("N")[..12]);
    private readonly string _cache = TestCaches.NewFolder();

    public void Dispose()
    {
        TestCaches.Delete(_repo);
        TestCaches.Delete(_cache);
    }

    [Fact]
    public async Task Publish_GitRef_BuildsThatCommitInAWorktreeAndReusesItForTheSameCommit()
    {
        var project = Path.Combine(_repo, "src", "Versioned");
        var first = await VersionedRepo.CommitAsync(_repo, project, "return \"one\";");
        await VersionedRepo.CommitAsync(_repo, project, "return \"two\";");

        var built = await AppBuilds.PublishAsync(project, "HEAD~1", progress: null, CancellationToken.None, _cache);
        var again = await AppBuilds.PublishAsync(project, first, progress: null, CancellationToken.None, _cache);

        Assert.True(built.Built);
        Assert.False(again.Built);
        Assert.Equal(built.Dll, again.Dll);
        Assert.StartsWith($"git-{first[..12]}-", built.Key, StringComparison.Ordinal);
        Assert.Equal("one", await AnswerOfAsync(built.Dll));
        // The worktree is gone, from the disk and from git's records; the user's tree still holds the newer commit.
        Assert.DoesNotContain("worktrees", await VersionedRepo.GitAsync(_repo, "worktree", "list"), StringComparison.Ordinal);
        Assert.Contains("\"two\"", File.ReadAllText(Path.Combine(project, "Program.cs")), StringComparison.Ordinal);
    }

    [Fact]
    public async Task Publish_UnknownRef_SaysItIsNoCommitOfTheRepository()
    {
        var project = Path.Combine(_repo, "src", "Versioned");
        await VersionedRepo.CommitAsync(_repo, project, "return \"one\";");

        var ex = await Assert.ThrowsAsync<PerfLab.Common.PerfLabException>(() =>
            AppBuilds.PublishAsync(project, "no-such-branch", progress: null, CancellationToken.None, _cache));

        Assert.Equal(PerfLab.Common.ExitCode.Usage, ex.ExitCode);
        Assert.Contains("'no-such-branch' is not a commit, branch or tag", ex.Message, StringComparison.Ordinal);
    }

    /// <summary>Starts the published app as perflab does and reads what its one endpoint answers.</summary>
    private static async Task<string> AnswerOfAsync(string dll)
    {
        var launch = new AppLaunch(new AppSource(AppSourceKind.Dll, dll), AppBinding.Urls, "/", TimeSpan.FromSeconds(60),
            new Dictionary<string, string>(), new Dictionary<string, string>(), ConfigurationVia.Arguments, Path.GetDirectoryName(dll)!);
        var app = new ExternalApp(launch);
        await app.PrepareAsync(null, CancellationToken.None);
        await using var running = await app.StartAsync(Path.Combine(Path.GetDirectoryName(dll)!, "..", "test.log"), null, CancellationToken.None);
        using var client = running.CreateClient(TimeSpan.FromSeconds(10));
        return await client.GetStringAsync("/");
    }
}
