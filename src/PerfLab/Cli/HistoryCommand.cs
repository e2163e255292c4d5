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

    /// <summary>`run --history`: the same store, named only when the run should be added to it.</summary>
    public static Option<string?> RunOption() => new("--history")
    {
        Description = "Add the run to this history when it ends (a SQLite file, or a PostgreSQL connection string or URL; "
            + "see `perflab history`); checked before the run starts.",
        HelpName = "file|connection",
    };

    /// <summary>Opens (and creates) the history before a run, so a wrong --history fails in a second rather than after the run.</summary>
    public static async Task<HistoryLocation?> CheckBeforeRunAsync(string? value, int invocations, CancellationToken ct)
    {
        if (value is null)
        {
            return null;
        }
        if (invocations > 1)
        {
            throw new PerfLabException("--history with --invocations is not supported yet: run, then 'perflab history add' the "
                + "pooled result folder.", ExitCode.Usage);
        }
        var location = HistoryLocation.Parse(value);
        await using var store = await HistoryStore.OpenAsync(location, create: true, ct);
        return location;
    }

    /// <summary>
    /// After a run: adds it, unless it was cut short. A store that fails now loses nothing: the folder stays, and the
    /// message says how to add it later; the exit is the run's own unless the run itself passed.
    /// </summary>
    public static async Task<int> AddAfterRunAsync(HistoryLocation location, Results.RunResults results, string folder, int exit,
        CancellationToken ct)
    {
        if (results.Incomplete || ct.IsCancellationRequested)
        {
            Console.Error.WriteLine($"history: the run was incomplete, so it was not added to {location.Shown}.");
            return exit;
        }
        try
        {
            await using var store = await HistoryStore.OpenAsync(location, create: true, ct);
            Console.WriteLine("history: " + await AddAsync(store, results, folder, ct));
            return exit;
        }
        catch (PerfLabException ex)
        {
            Console.Error.WriteLine($"error: {ex.Message} The run is kept in {folder}: add it later with 'perflab history add {folder}'.");
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
        var command = new Command("add", "Add runs (result folders) to the history; adding a run twice adds it once.");
        command.Arguments.Add(results);
        command.Options.Add(store);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            // Every folder is read before the store is touched: a bad folder adds nothing of the others either.
            var runs = pr.GetValue(results)!.Select(folder => (Folder: folder, Results: ResultsJson.ReadFolder(folder))).ToList();
            await using var history = await HistoryStore.OpenAsync(HistoryLocation.Parse(pr.GetValue(store)), create: true, ct);
            foreach (var (folder, result) in runs)
            {
                Console.WriteLine(await AddAsync(history, result, folder, ct));
            }
            Console.WriteLine($"history: {history.Location.Shown}, {await history.RunCountAsync(ct)} runs");
            return (int)ExitCode.Success;
        });
        return command;
    }

    /// <summary>Adds one run's results; the line says whether it was new. Used by `run --history` too.</summary>
    public static async Task<string> AddAsync(HistoryStore history, Results.RunResults results, string source, CancellationToken ct)
    {
        var (run, points) = HistoryIngest.From(results, Path.GetFullPath(source));
        var added = await history.AddAsync(run, points, ct);
        var what = string.Create(CultureInfo.InvariantCulture,
            $"{source}: commit {HistoryText.Short(run.Commit)}, {run.StartedAt.UtcDateTime:yyyy-MM-dd HH:mm} UTC");
        return added ? $"added {what} ({points.Count} figures)" : $"already in the history, skipped: {what}";
    }
}
