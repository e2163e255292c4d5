using PerfLab.Experiments.Definitions;
using PerfLab.Hosts;
using PerfLab.Results;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Experiments.Running;

/// <summary>
/// What the experiment runner is asked to do, once the lab is prepared (<see cref="LabRun"/>): the choices as asked,
/// held rather than copied, and what preparing the lab made of them.
/// </summary>
public sealed record RunRequest(IReadOnlyList<ExperimentDefinition> Experiments, LabRunChoices Choices, CoreLayout Layout)
{
    public ProfileName Profile => Choices.Profile;

    /// <summary>`--repeat`: the blocks per variant (the minimum when a precision is set); null: the profile's.</summary>
    public int? Repeat => Choices.Repeat;

    /// <summary>`--aa`: the baseline against itself.</summary>
    public bool Aa => Choices.Aa;

    /// <summary>
    /// `--margin`: the margin an equivalent lies within, over each experiment file's <c>margin:</c>; null: the file's, else 5 %.
    /// </summary>
    public double? Margin { get; init; }

    /// <summary>The built-in SUT's database; empty when every experiment runs an app of its own.</summary>
    public string ConnectionString { get; init; } = "";

    /// <summary>
    /// The built-in SUT's database backends' CPU read by the db role on its host; null: looked up here from
    /// <see cref="ConnectionString"/>.
    /// </summary>
    public Database.IBackendsCpu? DatabaseBackends { get; init; }

    /// <summary>
    /// The built-in SUT's database settled and reset before the blocks by the db role on its host; null: here, from
    /// <see cref="ConnectionString"/>.
    /// </summary>
    public Database.ILabReset? DatabaseReset { get; init; }

    /// <summary>The built-in SUT's database role on a db host, watched by each run's window; null: none of ours.</summary>
    public DatabaseWatch? DatabaseWatch { get; init; }

    /// <summary>The database in words, for the provenance.</summary>
    public string DatabaseDescription { get; init; } = "";

    /// <summary>Where each run's SUT log goes.</summary>
    public required string LogFolder { get; init; }

    /// <summary>`--precision`: the widest primary half-width to reach, overriding the profile's.</summary>
    public double? PrecisionPercent => Choices.Precision;

    /// <summary>`--budget`: the time the whole invocation may take.</summary>
    public TimeBudget Budget => Choices.Budget;

    /// <summary>
    /// `--trace`: trace each variant's first run after its measured
    /// window (the evidence behind the verdicts); null: no traces.
    /// </summary>
    public string? TraceFolder { get; init; }

    /// <summary>`--keep-traces`: keep the .nettrace files, not only the speedscope exports.</summary>
    public bool KeepTraces => Choices.KeepTraces;

    /// <summary>Where the built-in SUT runs: this machine, or the hosts file's app host.</summary>
    public Placement App { get; init; } = Placements.Local.App;

    /// <summary>Where each run's load is sent from: this process, or the hosts file's generators.</summary>
    public LoadSource Load { get; init; } = LoadSource.Here;

    /// <summary>Each role's host, for the provenance; null when everything runs on this machine.</summary>
    public IReadOnlyList<RoleHost>? Hosts { get; init; }
}

/// <summary>
/// The one progress channel of a lab run (the live display): each run's start and figures, each block's decision, and
/// every other line of progress through <see cref="IProgress{T}.Report"/>, so what reports a line below the runner (the
/// database's start, a measurement, an app's build) takes an <see cref="IProgress{T}"/> of string and is given this.
/// </summary>
public interface IRunObserver : IProgress<string>
{
    void RunStarting(RunPosition position);
    void RunFinished(RunPosition position, RunRecord record);
    void BlockFinished(BlockProgress progress);
}

/// <param name="Index">1-based position of this run in the whole plan.</param>
public sealed record RunPosition(string Experiment, string Variant, int Repetition, int Repetitions, int Index, int Total,
    TimeSpan? Remaining);

/// <summary>An experiment's state after a block: the widest primary half-width so far and whether it goes on.</summary>
public sealed record BlockProgress(string Experiment, int Block, double WidestHalfWidthPercent, double? TargetPercent,
    StopDecision Decision);
