using System.CommandLine;
using System.Globalization;
using PerfLab.Common;
using PerfLab.History;
using PerfLab.Reports;

namespace PerfLab.Cli;

/// <summary>
/// `perflab history add RESULTS...` keeps runs in a history (SQLite by default, PostgreSQL when given a server);
/// `perflab history show` prints each series by commit with its change points (E-Divisive means).
/// </summary>
public static class HistoryCommand
{
    public static Option<string?> StoreOption() => new("--history")
    {
        Description = "The history: a SQLite file (created on first add), or a PostgreSQL server as a connection string "
            + "(\"Host=...;Database=...;Username=...\") or URL (postgresql://user:password@host/db). Default: history.db in "
            + "perflab's cache folder ($PERFLAB_CACHE_DIR).",
        HelpName = "file|connection",
    };

    /// <summary>`run --history` and `compare --history`: the same store, named only when the run should be added to it.</summary>
    public static Option<string?> RunOption() => new("--history")
    {
        Description = "Add the run to this history when it ends (a SQLite file, or a PostgreSQL connection string or URL; "
            + "see `perflab history`); checked before the run starts. With --invocations, the pooled result is added.",
        HelpName = "file|connection",
    };

    public static Option<string?> CommitOption() => new("--commit")
    {
        Description = "The commit of what was measured, as the history records it: a hash, or a branch, tag or ref of the git "
            + "repository perflab runs from (e.g. HEAD). Default: the commit results.json names, perflab's own checkout (the "
            + "built-in SUT's sources); give this when the app or experiments measured live in another repository.",
        HelpName = "commit",
    };

    /// <summary>
    /// Opens (and creates) the history before a run, so a wrong --history fails in a second rather than after the run;
    /// resolves --commit now too, against the repository the run starts from.
    /// </summary>
    public static async Task<HistoryTarget?> CheckBeforeRunAsync(string? value, string? commit, CancellationToken ct)
    {
        if (value is null)
        {
            return commit is null ? null
                : throw new PerfLabException("--commit names the commit a history records: give --history too (or add the run "
                    + "later with 'perflab history add RESULTS --commit ...').", ExitCode.Usage);
        }
        var stated = commit is null ? null : await GitCommits.ResolveStatedAsync(commit, Environment.CurrentDirectory, ct);
        var location = HistoryLocation.Parse(value);
        await using var store = await HistoryStore.OpenAsync(location, create: true, ct);
        return new HistoryTarget(location, stated);
    }

    /// <summary>
    /// After a run: adds it, unless it was cut short. A store that fails now loses nothing: the folder stays, and the
    /// message says how to add it later; the exit is the run's own unless the run itself passed.
    /// </summary>
    public static async Task<int> AddAfterRunAsync(HistoryTarget target, Results.RunResults results, string folder, int exit,
        CancellationToken ct)
    {
        var location = target.Location;
        if (results.Incomplete || ct.IsCancellationRequested)
        {
            Console.Error.WriteLine($"history: the run was incomplete, so it was not added to {location.Shown}.");
            return exit;
        }
        try
        {
            await using var store = await HistoryStore.OpenAsync(location, create: true, ct);
            Console.WriteLine("history: " + await AddAsync(store, results, folder, target.Commit, ct));
            return exit;
        }
        catch (PerfLabException ex)
        {
            var commit = target.Commit is null ? "" : $" --commit {target.Commit}";
            Console.Error.WriteLine($"error: {ex.Message} The run is kept in {folder}: add it later with "
                + $"'perflab history add {folder}{commit}'.");
            return exit != 0 ? exit : (int)ex.ExitCode;
        }
    }

    public static Command Create()
    {
        var command = new Command("history",
            "Keep every run in a history and find where its figures changed, commit by commit (E-Divisive means change points).");
        command.Subcommands.Add(Add());
        command.Subcommands.Add(HistoryShowCommand.Create());
        return command;
    }

    private static Command Add()
    {
        var results = new Argument<string[]>("RESULTS")
        {
            Description = "Result folders written by 'perflab run' (or their results.json); a run already in the history is skipped.",
            Arity = ArgumentArity.OneOrMore,
        };
        var store = StoreOption();
        var commit = CommitOption();
        var command = new Command("add", "Add runs (result folders) to the history; adding a run twice adds it once.");
        command.Arguments.Add(results);
        command.Options.Add(store);
        command.Options.Add(commit);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            // Every folder is read before the store is touched: a bad folder adds nothing of the others either.
            var runs = pr.GetValue(results)!.Select(folder => (Folder: folder, Results: ResultsJson.ReadFolder(folder))).ToList();
            var stated = pr.GetValue(commit) is { } c ? await GitCommits.ResolveStatedAsync(c, Environment.CurrentDirectory, ct) : null;
            await using var history = await HistoryStore.OpenAsync(HistoryLocation.Parse(pr.GetValue(store)), create: true, ct);
            foreach (var (folder, result) in runs)
            {
                Console.WriteLine(await AddAsync(history, result, folder, stated, ct));
            }
            Console.WriteLine($"history: {history.Location.Shown}, {await history.RunCountAsync(ct)} runs");
            return (int)ExitCode.Success;
        });
        return command;
    }

    /// <summary>Adds one run's results; the line says whether it was new. Used by `run --history` too.</summary>
    /// <param name="commit">`--commit`, resolved: the commit of what was measured; null for the one results.json names.</param>
    public static async Task<string> AddAsync(HistoryStore history, Results.RunResults results, string source, string? commit,
        CancellationToken ct)
    {
        var (run, points) = HistoryIngest.From(results, Path.GetFullPath(source), commit);
        var added = await history.AddAsync(run, points, ct);
        var stated = commit is null ? "" : $" (stated by --commit; results.json names {HistoryText.Short(results.Provenance.Commit)})";
        var what = string.Create(CultureInfo.InvariantCulture,
            $"{source}: commit {HistoryText.Short(run.Commit)}{stated}, {run.StartedAt.UtcDateTime:yyyy-MM-dd HH:mm} UTC");
        return added ? $"added {what} ({points.Count} figures)" : $"already in the history, skipped: {what}";
    }
}

/// <summary>`--history` as checked before a run: where the run goes, and the commit stated for it (`--commit`), if any.</summary>
public sealed record HistoryTarget(HistoryLocation Location, string? Commit);
