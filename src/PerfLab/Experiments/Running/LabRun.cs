using System.Globalization;
using PerfLab.Common;
using PerfLab.Database;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

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

    /// <summary>`--budget`: the time the whole run may take.</summary>
    public TimeSpan? Budget { get; init; }

    /// <summary>`--trace`: null: on, except the smoke profile.</summary>
    public bool? Trace { get; init; }

    public bool KeepTraces { get; init; }

    /// <summary>`--connection` and `--data-dir`: an external PostgreSQL, or where the managed one keeps its data.</summary>
    public string? Connection { get; init; }

    public string? DataDir { get; init; }

    /// <summary>CI gates from the command line, checked after the run beside each experiment file's own.</summary>
    public IReadOnlyList<Threshold> Gates { get; init; } = [];
}

/// <summary>
/// A finished lab run: its results, gates evaluated, and the
/// folder its reports belong in (created, with the logs in it).
/// </summary>
public sealed record LabRunOutcome(RunResults Results, string Folder);

/// <summary>
/// The pipeline of one `perflab run` or `perflab compare` below the command line: the output folder claimed, the cores
/// laid out, the database readied (when an experiment uses the built-in SUT), the experiments run block by block
/// (<see cref="ExperimentRunner"/>), an A/A run's noise floors recorded, the gates evaluated. The caller renders.
/// </summary>
public static class LabRun
{
    /// <param name="console">Where the preparation's lines go (the database's start, the core layout).</param>
    public static async Task<LabRunOutcome> RunAsync(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices,
        IRunObserver observer,
        TextWriter console, CancellationToken ct)
    {
        var outDir = Path.GetFullPath(choices.Output
            ?? Path.Combine("results", DateTime.Now.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture)));
        if (Directory.Exists(outDir) || File.Exists(outDir))
        {
            throw new PerfLabException($"the output folder {outDir} already exists; results are never overwritten. Choose another --out.",
                ExitCode.Usage);
        }
        var (layout, connectionString, database) = await PrepareAsync(selected, choices, console, ct);
        Directory.CreateDirectory(outDir);
        var request = new RunRequest(selected, choices.Profile, layout)
        {
            Repeat = choices.Repeat,
            Aa = choices.Aa,
            ConnectionString = connectionString,
            DatabaseDescription = database,
            LogFolder = Path.Combine(outDir, "logs"),
            PrecisionPercent = choices.Precision,
            Budget = choices.Budget,
            TraceFolder = (choices.Trace ?? choices.Profile != ProfileName.Smoke) ? Path.Combine(outDir, "traces") : null,
            KeepTraces = choices.KeepTraces,
        };
        var noise = NoiseFloors.Load();
        var results = await new ExperimentRunner(request, observer).RunAsync(noise, ct);
        if (request.Aa)
        {
            // Recorded after the run, never mid-analysis: an interrupted A/A run still records what it measured.
            foreach (var experiment in results.Experiments)
            {
                noise.Record(experiment.Name, experiment.Comparisons);
            }
        }
        var gated = results with
        {
            Thresholds = ThresholdGate.Evaluate(results, name =>
                [.. (selected.FirstOrDefault(e => e.Name == name)?.Thresholds ?? []), .. choices.Gates]),
        };
        return new LabRunOutcome(gated, outDir);
    }

    /// <summary>
    /// The cores laid out and checked against every condition, and
    /// the database started, warmed and pinned when one is needed.
    /// </summary>
    private static async Task<(CoreLayout Layout, string ConnectionString, string Database)> PrepareAsync(
        IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices, TextWriter console,
        CancellationToken ct)
    {
        var layout = RunEnvironment.PlanLayout(choices.Pin);
        var conditions = ConditionsOf(selected);
        RunConditions.CheckCores(conditions, layout);
        // Only the built-in SUT reads PostgreSQL: experiments on apps of one's own start none.
        var needsDatabase = selected.Any(e => e.App is null);
        var (connectionString, database) = needsDatabase
            ? await DatabasePreparation.EnsureReadyAsync(choices.Connection, choices.DataDir, console, ct)
            : ("", "none (every experiment runs an app of its own)");
        if (needsDatabase && conditions.Any(c => c.DatabaseRttMs is not null))
        {
            DatabasePath.CheckTarget(connectionString);
        }
        if (needsDatabase)
        {
            await DatabasePreparation.WarmAsync(connectionString, ct);
        }
        await DatabasePreparation.ApplyLayoutAsync(layout.Generator, needsDatabase ? layout.Database : null, choices.Connection,
            choices.DataDir, ct);
        console.WriteLine($"cores: {layout.Note}");
        return (layout, connectionString, database);
    }

    /// <summary>Every variant's conditions at every point of the selected experiments, to check before anything starts.</summary>
    private static List<Conditions> ConditionsOf(IReadOnlyList<ExperimentDefinition> selected) =>
        selected.SelectMany(SweepDefinition.Points).SelectMany(e => e.Variants.Select(v => e.Conditions.Under(v.Conditions))).ToList();
}
