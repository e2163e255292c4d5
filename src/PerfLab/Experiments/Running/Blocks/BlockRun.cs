using PerfLab.Experiments.Definitions;
using PerfLab.Results;
using PerfLab.Experiments.Running.Budget;
using PerfLab.Experiments.Running.Databases;
using PerfLab.Experiments.Running.Capacity;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Experiments.Running.Blocks;

/// <summary>One block of one experiment: its variants in run order, its number, and the run plan it counts in.</summary>
internal sealed record BlockRun(ExperimentProgress Progress, IReadOnlyList<VariantDefinition> Order, int Number, RunPlan Plan)
{
    public ExperimentDefinition Experiment => Progress.Experiment;

    /// <summary>Where a run of this block stands in the whole plan, for the live display.</summary>
    public RunPosition Position(VariantDefinition variant, int index, int remainingFrom) =>
        new(Experiment.Name, variant.Name, Number, Plan.BlocksOf(Experiment.Name), index, Plan.TotalRuns, Plan.Remaining(remainingFrom));
}

/// <summary>An alternating block's SUTs and database paths (disposed in that order) and its records by block position.</summary>
internal sealed class StartedBlock(int variants) : IAsyncDisposable
{
    public List<BlockParticipant> Participants { get; } = [];
    public List<DatabasePath> Paths { get; } = [];
    public RunRecord?[] Records { get; } = new RunRecord?[variants];

    /// <summary>The measured records (one per participant, in order) into the places the failed starts left free.</summary>
    public void Fill(IReadOnlyList<RunRecord> measured)
    {
        for (int i = 0, j = 0; i < Records.Length && j < measured.Count; i++)
        {
            Records[i] ??= measured[j++];
        }
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var p in Participants)
        {
            await p.Sut.DisposeAsync();
        }
        // After the SUTs: each reached the database through its path.
        foreach (var path in Paths)
        {
            await path.DisposeAsync();
        }
    }
}

/// <summary>
/// How a block's variant is measured under the request's profile;
/// each variant's first run is traced when traces are asked for (a sweep's: at one point, <see cref="ExperimentDefinition.Traced"/>).
/// </summary>
internal sealed class Measurements(RunRequest request, IRunObserver observer)
{
    /// <summary>A capacity experiment's search, or else the load engine's measurement.</summary>
    public IMeasurement For(BlockRun block, VariantDefinition variant)
    {
        var experiment = block.Experiment;
        var profile = experiment.Profiles[request.Profile];
        return experiment.Capacity is not null
            ? new CapacityMeasurement(experiment, variant, profile, Recorder(block, variant, capture: null)) { Progress = observer }
            : ThroughLoadEngine(block, variant);
    }

    /// <summary>The load engine's measurement: the one alternating blocks use.</summary>
    public LoadMeasurement ThroughLoadEngine(BlockRun block, VariantDefinition variant)
    {
        var trace = request.TraceFolder is { } folder && block.Number == 1 && block.Experiment.Traced
            ? new EvidenceCapture(folder, Path.GetDirectoryName(folder)!, request.KeepTraces)
            : null;
        return Recorder(block, variant, trace);
    }

    /// <summary>
    /// The one load measurement made from the request, for a plain run and for a capacity search's records alike: the
    /// same database, the same backends' CPU (read on the db host when there is one), the same load source.
    /// </summary>
    private LoadMeasurement Recorder(BlockRun block, VariantDefinition variant, EvidenceCapture? capture)
    {
        var experiment = block.Experiment;
        var connectionString = experiment.App is null ? request.ConnectionString : null;
        return new LoadMeasurement(experiment, variant, experiment.Profiles[request.Profile], connectionString)
        {
            Capture = capture,
            Traced = block.Progress.Traced.Add,
            TraceFailed = block.Progress.TraceFailures.Add,
            Progress = observer,
            Load = request.Load,
            DatabaseBackends = request.DatabaseBackends,
            Database = connectionString is null ? null : request.DatabaseWatch,
        };
    }
}
