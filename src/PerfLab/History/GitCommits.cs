using PerfLab.Common;

namespace PerfLab.History;

/// <summary>The commits a history names, as git knows them: the hash a run's commit text holds, a commit a user states.</summary>
public static class GitCommits
{
    private static readonly TimeSpan GitTimeout = TimeSpan.FromSeconds(30);

    /// <summary>The hash a run's commit begins with ("0123abcd (modified)" is measured on that commit's tree); null without one.</summary>
    public static string? HashOf(string commit)
    {
        var hex = commit.TakeWhile(Uri.IsHexDigit).Count();
        return hex is >= 7 and <= 40 && (hex == commit.Length || commit[hex] == ' ') ? commit[..hex].ToLowerInvariant() : null;
    }

    /// <summary>
    /// `--commit`: the commit of what was measured, when it is not perflab's own checkout (the built-in SUT's sources,
    /// which results.json records) but an app or experiment of another repository. A ref or hash the git repository of
    /// <paramref name="folder"/> knows becomes its 12-digit hash; a bare hash it does not know is kept (its first 12
    /// digits, as results.json writes a commit: a run added on a machine without that clone); anything else is refused.
    /// </summary>
    public static async Task<string> ResolveStatedAsync(string stated, string folder, CancellationToken ct)
    {
        var text = stated.Trim();
        if (text.Length > 0 && !text.StartsWith('-')
            && await GitAsync(["-C", folder, "rev-parse", "--verify", "--quiet", text + "^{commit}"], ct) is { Length: >= 12 } sha)
        {
            return sha.Trim()[..12];
        }
        if (HashOf(text) is { } hash && hash.Length == text.Length)
        {
            return hash[..Math.Min(12, hash.Length)];
        }
        throw new PerfLabException($"--commit '{stated}' is not a commit of a git repository at {folder}: give a commit hash, or a "
            + "branch, tag or ref of the repository you run perflab from (e.g. --commit HEAD).", ExitCode.Usage);
    }

    /// <summary>Git's output, or null when it fails or is missing.</summary>
    internal static async Task<string?> GitAsync(IReadOnlyList<string> args, CancellationToken ct)
    {
        try
        {
            var result = await ProcessRunner.RunAsync("git", args, runAsUser: null, GitTimeout, ct);
            return result.ExitCode == 0 ? result.Output : null;
        }
        catch (PerfLabException)
        {
            return null;
        }
    }
}
