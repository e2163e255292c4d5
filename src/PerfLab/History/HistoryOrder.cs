namespace PerfLab.History;

/// <summary>How a history's points were put in order, said in every output: by git, or by start time and why.</summary>
/// <param name="ByGit">True when the runs are in their commits' git order; false when by their start times.</param>
public sealed record RunOrder(bool ByGit, string Said);

/// <summary>
/// The order of a series is the order of its commits in git when the runs' commits are all in the repository asked
/// (a run measured later of an older commit, or a branch's runs, land where their commits are); runs of one commit stay
/// together, by start time. When a commit is not there (or names no commit: "unknown", a package), start times order
/// every run, and the reason is said: a partial git order would place the others arbitrarily.
/// </summary>
public static class HistoryOrder
{
    /// <param name="points">The points as the store returns them: by start time.</param>
    /// <param name="folder">A folder inside the git repository whose commits order the runs.</param>
    public static async Task<(IReadOnlyList<StoredPoint> Points, RunOrder Order)> ArrangeAsync(IReadOnlyList<StoredPoint> points,
        string folder, CancellationToken ct)
    {
        var commits = points.Select(p => p.Run.Commit).Distinct(StringComparer.Ordinal).ToList();
        if (commits.Count == 0)
        {
            return (points, new RunOrder(false, "by start time (no runs)"));
        }
        if (commits.FirstOrDefault(c => GitCommits.HashOf(c) is null) is { } named)
        {
            return (points, ByTime($"'{named}' names no git commit"));
        }
        var top = await GitCommits.GitAsync(["-C", folder, "rev-parse", "--show-toplevel"], ct);
        if (top is null)
        {
            return (points, ByTime($"{folder} is not inside a git repository"));
        }
        var repository = top.Trim();
        var hashes = commits.Select(c => GitCommits.HashOf(c)!).Distinct(StringComparer.Ordinal).ToList();
        var full = await GitCommits.GitAsync(["-C", repository, "rev-parse", .. hashes.Select(h => h + "^{commit}")], ct);
        var resolved = full?.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) ?? [];
        if (resolved.Length != hashes.Count)
        {
            return (points, ByTime($"not every run's commit is in the git repository {repository}"));
        }
        var rank = await RanksAsync(repository, resolved, ct);
        if (rank is null)
        {
            return (points, ByTime($"git could not list the commits of {repository}"));
        }
        var place = hashes.Zip(resolved, (h, f) => (h, Rank: rank.GetValueOrDefault(f, int.MaxValue)))
            .ToDictionary(x => x.h, x => x.Rank, StringComparer.Ordinal);
        // OrderBy is stable: runs of one commit keep the store's order, by start time.
        var ordered = points.OrderBy(p => place[GitCommits.HashOf(p.Run.Commit)!]).ToList();
        return (ordered, new RunOrder(true, $"by commit in git order (topological, {repository}); runs of one commit by start time"));
    }

    private static RunOrder ByTime(string why) => new(false, $"by start time, not git order: {why}");

    /// <summary>
    /// Each commit's place in `git rev-list --topo-order --reverse` (parents before children), listed from the commits'
    /// common ancestor only, so a long history is not walked to its root.
    /// </summary>
    private static async Task<Dictionary<string, int>?> RanksAsync(string repository, IReadOnlyList<string> commits, CancellationToken ct)
    {
        var bases = await GitCommits.GitAsync(["-C", repository, "merge-base", "--octopus", .. commits], ct);
        List<string> stop = bases is { Length: > 0 } b ? ["--not", b.Trim() + "^@"] : [];
        var listed = await GitCommits.GitAsync(["-C", repository, "rev-list", "--topo-order", "--reverse", .. commits, .. stop], ct);
        return listed?.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select((commit, i) => (commit, i)).ToDictionary(x => x.commit, x => x.i, StringComparer.Ordinal);
    }
}
