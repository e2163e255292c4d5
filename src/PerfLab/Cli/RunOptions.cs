using System.CommandLine;

namespace PerfLab.Cli;

/// <summary>The options of `perflab run`.</summary>
internal sealed class RunOptions
{
    public Argument<string[]> Names { get; } = new("experiments")
    {
        Description = "Experiments to run, by name (default: all; see `perflab list`); their folder is --experiments-dir.",
        Arity = ArgumentArity.ZeroOrMore,
    };

    public Option<Experiments.Definitions.ProfileName> Profile { get; } = RunTuningOptions.Profile(
        "Durations and repetitions: article (the seed's own), quick (the default: adaptive where it matters, within "
            + "--budget), smoke (about 2 min, one run each: checks that everything runs; no interval, so no gate "
            + "that reads one).");

    public Option<int?> Repeat { get; } = RunTuningOptions.Repeat(
        "Repetitions (interleaved blocks) per variant; the minimum when a precision is set (default: the profile's).");

    public Option<string?> Output { get; } = new("--out", "-o")
    {
        Description = "Output folder (default: results/<timestamp>); never overwritten.",
        HelpName = "folder",
    };

    public Option<bool> Aa { get; } = new("--aa")
    {
        Description = "A/A run: the baseline against itself, to measure this machine's noise floor (recorded and used by later runs).",
    };

    public FlagPair Pin { get; } = new("pin",
        "Pin the SUT, generator and PostgreSQL to separate CPUs (default: only with 4 or more cores).",
        "Never pin, whatever the cores.");

    public Option<double?> Precision { get; } = RunTuningOptions.Precision();

    public FlagPair Trace { get; } = new("trace",
        "After each variant's first measured window, trace it for 5 s more (CPU stacks, locks, GC; never during the "
            + "window) to explain the verdicts (default: on, except the smoke profile).",
        "Skip the traces (the verdicts come without their call sites).");

    public Option<bool> KeepTraces { get; } = new("--keep-traces")
    {
        Description = "Keep each traced run's .nettrace (10-15 MB each; open with `perflab trace report` or "
            + "PerfView) beside its speedscope file.",
    };

    public Option<string[]> Thresholds { get; } = ThresholdOptions.Create(
        "A CI gate checked after the run, on every experiment (beside its file's thresholds:), e.g. \"p99<250ms\", \"errors<1%\", "
            + "\"change>-5%\" (the deciding metric's change against the baseline, better positive: RPS, or a cost drop; "
            + "\"rps-change>-5%\" for RPS alone), \"no-worse\" or \"no-worse(3%)\"; repeatable. " + ThresholdOptions.IntervalReading
            + "A gate that reads an interval needs 2 or more blocks (not the smoke profile). A failing gate exits with 5.");

    public Option<double?> Margin { get; } = ThresholdOptions.Margin();

    public Option<TimeSpan?> Budget { get; } = RunTuningOptions.Budget();

    public OutputOptions Ci { get; } = new();

    public Option<string?> Connection { get; } = DbOptions.ConnectionString();

    public Option<string?> DataDir { get; } = DbOptions.DataDir();

    public ExperimentsFolder Folder { get; } = new();

    public Option<int> Invocations { get; } = RunTuningOptions.Invocations();

    public Option<FileInfo?> Hosts { get; } = HostsOption.Create();

    public Option<string?> History { get; } = HistoryCommand.RunOption();

    public Option<string?> Commit { get; } = HistoryCommand.CommitOption();

    public void AddTo(Command command)
    {
        command.Arguments.Add(Names);
        foreach (var option in new Option[]
        {
            Profile, Repeat, Precision, Budget, Output, Aa, KeepTraces, Thresholds, Margin, Connection, DataDir, Hosts, Invocations,
            History, Commit,
            RunTuningOptions.RetiredProfileLetter(),
        })
        {
            command.Options.Add(option);
        }
        Pin.AddTo(command);
        Trace.AddTo(command);
        Folder.AddTo(command);
        Ci.AddTo(command);
    }
}
