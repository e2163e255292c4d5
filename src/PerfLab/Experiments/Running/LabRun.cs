using System.Globalization;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Hosts;
using PerfLab.Results;
using PerfLab.Experiments.Running.Databases;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Experiments.Running;

/// <summary>What `perflab run` (and `perflab compare`) was asked, beyond which experiments.</summary>
public sealed record LabRunChoices(ProfileName Profile)
{
    /// <summary>`--repeat`: the blocks per variant (the minimum when a precision is set); null: the profile's.</summary>
    public int? Repeat { get; init; }

    /// <summary>`--aa`: the baseline against itself, recorded as this machine's noise floor.</summary>
    public bool Aa { get; init; }

    /// <summary>`--out`: the output folder; null: results/&lt;timestamp&gt;.</summary>
    public string? Output { get; init; }

    /// <summary>`--pin`: pin the roles to separate CPUs; null: only with 4 or more cores.</summary>
    public bool? Pin { get; init; }

    /// <summary>`--precision`: overrides the profile's target half-width.</summary>
    public double? Precision { get; init; }

    /// <summary>`--budget`: the time the whole run may take, from the invocation's start.</summary>
    public TimeBudget Budget { get; init; } = TimeBudget.Asked(null);

    /// <summary>`--trace`: null: on, except the smoke profile.</summary>
    public bool? Trace { get; init; }

    /// <summary>Whether the run traces its variants, as <see cref="Trace"/> and the profile decide.</summary>
    public bool Traced => Trace ?? Profile != ProfileName.Smoke;

    public bool KeepTraces { get; init; }

    /// <summary>`--connection` and `--data-dir`: an external PostgreSQL, or where the managed one keeps its data.</summary>
    public string? Connection { get; init; }

    public string? DataDir { get; init; }

    /// <summary>CI gates from the command line, checked after the run beside each experiment file's own.</summary>
    public IReadOnlyList<Threshold> Gates { get; init; } = [];

    /// <summary>
    /// `--margin`: the margin in percent an equivalent lies within and no-worse accepts, for every experiment, over its
    /// file's <c>margin:</c>.
    /// </summary>
    public double? Margin { get; init; }

    /// <summary>`--hosts`: where the app and the database run; null: all on this machine.</summary>
    public HostsFile? Hosts { get; init; }
}

/// <summary>
/// A finished lab run: its results, gates evaluated, and the folder its reports belong in (created, with the logs in it).
/// </summary>
public sealed record LabRunOutcome(RunResults Results, string Folder);

/// <summary>
/// The pipeline of one `perflab run` or `perflab compare` below the command line: the output folder claimed, the cores
/// laid out, the database readied (when an experiment uses the built-in SUT), the experiments run block by block
/// (<see cref="ExperimentRunner"/>), an A/A run's noise floors recorded, the gates evaluated. The caller renders.
/// </summary>
public static class LabRun
{
    /// <param name="observer">Where the run's progress goes, the preparation's lines (the hosts, the database's start, the
    /// core layout) first.</param>
    public static async Task<LabRunOutcome> RunAsync(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices,
        IRunObserver observer, CancellationToken ct)
    {
        var outDir = OutputFolder(choices.Output);
        CheckPlacements(selected, choices);
        var placements = choices.Hosts is { } file
            ? await Placements.ResolveAsync(file, observer, ct)
            : Placements.Local;
        var (layout, database) = await PrepareAsync(selected, choices, placements, observer, ct);
        await using (database)
        {
            Directory.CreateDirectory(outDir);
            var trace = choices.Traced;
            if (!placements.App.ObservedHere)
            {
                observer.Report($"the app runs on {placements.App.HostName}: its counters, CPU, JIT tiering and traces are read " +
                    "there and sent back.");
            }
            var request = new RunRequest(selected, choices, layout)
            {
                ConnectionString = database.ConnectionString,
                DatabaseDescription = database.Description,
                DatabaseBackends = database.Backends,
                DatabaseReset = database.Reset,
                DatabaseWatch = database.Watch,
                LogFolder = Path.Combine(outDir, "logs"),
                TraceFolder = trace ? Path.Combine(outDir, "traces") : null,
                App = placements.App,
                Load = placements.Load,
                Hosts = placements.AnyElsewhere
                    ? [.. placements.Recorded.Select(p =>
                        new RoleHost(p.Role, p.HostName, p.Address, p.Cores, p.Clock.OffsetMs, p.Clock.UncertaintyMs))]
                    : null,
            };
            return await RunRequestAsync(request, selected, choices, observer, ct);
        }
    }

    /// <summary>The output folder asked (or results/&lt;timestamp&gt;) as a full path, refused when it exists already.</summary>
    public static string OutputFolder(string? asked)
    {
        var outDir = Path.GetFullPath(asked
            ?? Path.Combine("results", DateTime.Now.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture)));
        if (Directory.Exists(outDir) || File.Exists(outDir))
        {
            throw new PerfLabException($"the output folder {outDir} already exists; results are never overwritten. Choose another --out.",
                ExitCode.Usage);
        }
        return outDir;
    }

    /// <summary>
    /// Each experiment's gates (its file's thresholds and the command line's) checked on the results, a no-worse without
    /// a margin of its own taking <paramref name="margin"/> (`--margin`), else the file's <c>margin:</c>.
    /// </summary>
    public static RunResults Gated(RunResults results, IReadOnlyList<ExperimentDefinition> selected, IReadOnlyList<Threshold> gates,
        double? margin = null) =>
        results with
        {
            Thresholds = ThresholdGate.Evaluate(results, name => selected.FirstOrDefault(e => e.Name == name) is { } e
                ? [.. e.Thresholds.Concat(gates).Select(t => t.WithMargin(margin ?? e.Margin))]
                : [.. gates.Select(t => t.WithMargin(margin))]),
        };

    private static async Task<LabRunOutcome> RunRequestAsync(RunRequest request, IReadOnlyList<ExperimentDefinition> selected,
        LabRunChoices choices, IRunObserver observer, CancellationToken ct)
    {
        var noise = NoiseFloors.Load();
        var results = await new ExperimentRunner(request, observer).RunAsync(noise, ct);
        if (request.Aa)
        {
            // Recorded after the run, never mid-analysis: an interrupted A/A run still records what it measured.
            foreach (var experiment in results.Experiments)
            {
                noise.Record(experiment.Comparisons);
            }
        }
        return new LabRunOutcome(Gated(results, selected, choices.Gates, choices.Margin), Path.GetDirectoryName(request.LogFolder)!);
    }

    /// <summary>
    /// What a run on other hosts cannot do, refused before anything starts: an app of one's own (only the built-in SUT
    /// has an app role), generators for a scenario sent through a latency proxy on this machine, a database round trip
    /// set by a proxy on this machine, cores taken from this machine's CPUs.
    /// </summary>
    private static void CheckPlacements(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices)
    {
        if (choices.Hosts is not { App.IsLocal: false })
        {
            return;
        }
        // An app of one's own is published here and its build copied to the app host; a command line has nothing to copy.
        if (selected.FirstOrDefault(e => e.App is { } app
                && e.Variants.Any(v => app.LaunchFor(v, null).Source.Kind == Apps.AppSourceKind.Command)) is { } command)
        {
            throw new PerfLabException(RemoteOwnApp.CommandRefused(command.Name), ExitCode.Usage);
        }
        if (choices.Hosts.Load.Any(h => !h.IsLocal)
            && selected.FirstOrDefault(e => e.Scenarios.Any(s => s.Model.PathRtt is not null)) is { } apart)
        {
            // An upload's answer is one transfer's time over one connection through its round-trip proxy here: not a rate
            // a generator's share of could make.
            throw new PerfLabException(
                $"{apart.Name} times each transfer over one connection through a latency proxy on this machine (rtt:), not a "
                    + "load generators can share: give load: [local] for it.",
                ExitCode.Usage);
        }
        if (ConditionsOf(selected).Any(c => c.DatabaseRttMs is not null))
        {
            throw new PerfLabException(
                "a database round-trip condition puts a proxy on this machine between the app and PostgreSQL: " +
                "not with the app on another host.",
                ExitCode.Usage);
        }
        if (ConditionsOf(selected).Any(c => c.Cores is not null))
        {
            throw new PerfLabException("a cores condition pins the app to this machine's CPUs: not with the app on another host yet.",
                ExitCode.Usage);
        }
        if (choices.Pin == true)
        {
            throw new PerfLabException("--pin lays out this machine's cores: the app on another host is not pinned; drop --pin.",
                ExitCode.Usage);
        }
    }

    /// <summary>
    /// The cores laid out and checked against every condition, and the database started where it is placed, warmed and
    /// pinned when one is needed.
    /// </summary>
    private static async Task<(CoreLayout Layout, RunDatabase Database)> PrepareAsync(IReadOnlyList<ExperimentDefinition> selected,
        LabRunChoices choices, Placements placements, IProgress<string> progress, CancellationToken ct)
    {
        var layout = RunEnvironment.PlanLayout(choices.Pin);
        var conditions = ConditionsOf(selected);
        RunConditions.CheckCores(conditions, layout);
        // Only the built-in SUT reads PostgreSQL: experiments on apps of one's own start none.
        var needsDatabase = selected.Any(e => e.App is null);
        var ask = new DatabaseAsk(placements.DatabaseConnection ?? choices.Connection, choices.DataDir, layout.Database);
        var database = needsDatabase ? await placements.Db.StartDatabaseAsync(ask, placements.App, progress, ct) : RunDatabase.None;
        try
        {
            if (needsDatabase && conditions.Any(c => c.DatabaseRttMs is not null))
            {
                DatabasePath.CheckTarget(database.ConnectionString);
            }
            await DatabasePreparation.ApplyLayoutAsync(layout.Generator, null, choices.Connection, choices.DataDir, ct);
        }
        catch
        {
            await database.DisposeAsync();
            throw;
        }
        progress.Report($"cores: {layout.Note}");
        return (layout, database);
    }

    /// <summary>Every variant's conditions at every point of the selected experiments, to check before anything starts.</summary>
    private static List<Conditions> ConditionsOf(IReadOnlyList<ExperimentDefinition> selected) =>
        selected.SelectMany(SweepDefinition.Points).SelectMany(e => e.Variants.Select(v => e.Conditions.Under(v.Conditions))).ToList();
}
