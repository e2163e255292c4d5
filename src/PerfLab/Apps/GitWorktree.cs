using System.Security.Cryptography;
using System.Text;
using PerfLab.Common;

namespace PerfLab.Apps;

/// <summary>A project at a git ref: its repository, the commit the ref names, and the project's path inside the repository.</summary>
/// <param name="Key">The cache key: the commit and the project's path, so two projects of one commit do not share a build.</param>
public sealed record GitSource(string Repository, string Commit, string RelativeProject, string Key)
{
    private static readonly TimeSpan GitTimeout = TimeSpan.FromMinutes(2);

    public static async Task<GitSource> ResolveAsync(string project, string gitRef, CancellationToken ct)
    {
        var folder = Path.GetDirectoryName(project)!;
        var top = await RunAsync(["-C", folder, "rev-parse", "--show-toplevel"], ct);
        if (top.ExitCode != 0)
        {
            throw new PerfLabException($"ref '{gitRef}' was asked for, but {folder} is not inside a git repository.", ExitCode.Usage);
        }
        var repository = top.Output.Trim();
        var commit = await RunAsync(["-C", repository, "rev-parse", "--verify", "--quiet", gitRef + "^{commit}"], ct);
        if (commit.ExitCode != 0)
        {
            throw new PerfLabException($"'{gitRef}' is not a commit, branch or tag of the git repository {repository}.", ExitCode.Usage);
        }
        var sha = commit.Output.Trim();
        // Asked of git, so that symbolic links on the way (a /tmp that is a link) cannot skew the path.
        var prefix = await RunAsync(["-C", folder, "rev-parse", "--show-prefix"], ct);
        var relative = Path.Combine(prefix.Output.Trim(), Path.GetFileName(project));
        var pathHash = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(relative)))[..8].ToLowerInvariant();
        return new GitSource(repository, sha, relative, $"git-{sha[..12]}-{pathHash}");
    }

    internal static Task<ProcessResult> RunAsync(IReadOnlyList<string> args, CancellationToken ct) =>
        ProcessRunner.RunAsync("git", args, runAsUser: null, GitTimeout, ct);
}

/// <summary>
/// A detached git worktree of one commit, in perflab's cache, removed (with git's record of it) when disposed: the
/// user's own working tree and branches are never touched.
/// </summary>
public sealed class GitWorktree : IAsyncDisposable
{
    private readonly string _repository;

    private GitWorktree(string repository, string folder)
    {
        _repository = repository;
        Folder = folder;
    }

    public string Folder { get; }

    public static async Task<GitWorktree> AddAsync(GitSource source, string parent, CancellationToken ct)
    {
        Directory.CreateDirectory(parent);
        var folder = Path.Combine(parent, $"{source.Commit[..12]}-{Guid.NewGuid():N}"[..21]);
        var added = await GitSource.RunAsync(["-C", source.Repository, "worktree", "add", "--detach", folder, source.Commit], ct);
        if (added.ExitCode != 0)
        {
            throw new PerfLabException($"git could not check out {source.Commit[..12]} into a worktree: {added.Output}",
                ExitCode.Environment);
        }
        return new GitWorktree(source.Repository, folder);
    }

    public async ValueTask DisposeAsync()
    {
        await GitSource.RunAsync(["-C", _repository, "worktree", "remove", "--force", Folder], CancellationToken.None);
        if (Directory.Exists(Folder))
        {
            Directory.Delete(Folder, recursive: true);
            await GitSource.RunAsync(["-C", _repository, "worktree", "prune"], CancellationToken.None);
        }
    }
}
