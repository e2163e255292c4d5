using System.CommandLine;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Cli;

public static class RunCommand
{
    public static Command Create()
    {
        var o = new RunOptions();
        var command = new Command("run", "Run experiments against the SUT (or the app an experiment file names) and write report.md, "
            + "report.html and results.json.");
        command.Arguments.Add(o.Names);
        foreach (var option in new Option[]
        {
            o.Profile, o.Repeat, o.Precision, o.Budget, o.Output, o.Aa, o.Pin, o.Trace, o.KeepTraces, o.Thresholds, o.Margin, o.Connection,
            o.DataDir, o.Folder, o.Hosts, o.Invocations, o.History,
        })
        {
            command.Options.Add(option);
        }
        o.Ci.AddTo(command);
        command.SetAction((parse, ct) => RunAsync(parse, o, ct));
        return command;
    }

    private sealed class RunOptions
    {
        public Argument<string[]> Names { get; } = new("experiments")
        {
            Description = "Experiments to run (default: all; see `perflab list`).",
            Arity = ArgumentArity.ZeroOrMore,
        };

        public Option<ProfileName> Profile { get; } = ProfileOption();

        public Option<int?> Repeat { get; } = RepeatOption();

        public Option<string?> Output { get; } = new("--out", "-o")
        {
            Description = "Output folder (default: results/<timestamp>); never overwritten.",
            HelpName = "folder",
        };

        public Option<bool> Aa { get; } = new("--aa")
        {
            Description = "A/A run: the baseline against itself, to measure this machine's noise floor (recorded and used by later runs).",
        };

        public Option<bool?> Pin { get; } = new("--pin")
        {
            Description = "Pin the SUT, generator and PostgreSQL to separate CPUs (default: only with 4 or more "
                + "cores); --pin false to never pin.",
        };

        public Option<double?> Precision { get; } = RunTuningOptions.Precision();

        public Option<bool?> Trace { get; } = new("--trace")
        {
            Description = "After each variant's first measured window, trace it for 5 s more (CPU stacks, locks, GC; never during the "
                + "window) to explain the verdicts (default: on, except the smoke profile); --trace false to skip.",
        };

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

        public Option<string?> Folder { get; } = ExperimentOptions.Folder();

        public Option<int> Invocations { get; } = RunTuningOptions.Invocations();

        public Option<FileInfo?> Hosts { get; } = HostsOption.Create();

        public Option<string?> History { get; } = HistoryCommand.RunOption();

        private static Option<ProfileName> ProfileOption()
        {
            var profile = new Option<ProfileName>("--profile", "-p")
            {
                Description = "Durations and repetitions: article (the seed's own), quick (the default: adaptive where it matters, within "
                    + "--budget), smoke (about 2 min, one run each: checks that everything runs; no interval, so no gate "
                    + "that reads one).",
                DefaultValueFactory = _ => ProfileName.Quick,
            };
            profile.AcceptOnlyFromAmong([.. ProfileNames.Keys]);
            return profile;
        }

        private static Option<int?> RepeatOption()
        {
            var repeat = new Option<int?>("--repeat", "-r")
            {
                Description = "Repetitions (interleaved blocks) per variant; the minimum when a precision is set (default: the profile's).",
            };
            repeat.Check(v => v is null or (>= 1 and <= 100), "--repeat must be from 1 to 100.");
            return repeat;
        }
    }

    private static async Task<int> RunAsync(ParseResult parse, RunOptions o, CancellationToken ct)
    {
        var all = ExperimentLoader.LoadFolder(parse.GetValue(o.Folder) ?? ExperimentLoader.DefaultFolder);
        var selected = Select(all, parse.GetValue(o.Names) ?? []);
        var gates = ThresholdOptions.Parse(parse.GetValue(o.Thresholds));
        ThresholdOptions.EnsureScenariosExist(gates, selected.SelectMany(e => e.Scenarios.Select(s => s.Name)));
        ThresholdOptions.EnsureIntervals(gates, selected, parse.GetValue(o.Profile), parse.GetValue(o.Repeat),
            parse.GetValue(o.Invocations));
        var history = await HistoryCommand.CheckBeforeRunAsync(parse.GetValue(o.History), parse.GetValue(o.Invocations), ct);
        return await RunSelectedAsync(selected, new LabRunChoices(parse.GetValue(o.Profile))
        {
            Repeat = parse.GetValue(o.Repeat), Aa = parse.GetValue(o.Aa), Output = parse.GetValue(o.Output), Pin = parse.GetValue(o.Pin),
            Precision = parse.GetValue(o.Precision), Budget = RunTuningOptions.BudgetOf(parse, o.Budget), Trace = parse.GetValue(o.Trace),
            KeepTraces = parse.GetValue(o.KeepTraces), Connection = parse.GetValue(o.Connection), DataDir = parse.GetValue(o.DataDir),
            Gates = gates, Margin = parse.GetValue(o.Margin),
            Hosts = HostsOption.Read(parse, o.Hosts),
        }, o.Ci.Begin(parse, "run"), ct, InvocationsAsk.Of(parse, o.Invocations, o.Output, o.Budget, o.Ci.Junit, o.Ci.Json), history);
    }

    /// <summary>
    /// Runs the given experiments (from files, or built from `perflab
    /// compare`'s command line), writes the reports, names the exit.
    /// </summary>
    /// <param name="outputs">--junit, --json and the CI step summary, written after the reports.</param>
    /// <param name="invocations">`--invocations`: more than one repeats the run in child processes and pools them.</param>
    /// <param name="history">`--history`: the history the run is added to when it ends (checked before it starts).</param>
    internal static async Task<int> RunSelectedAsync(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices, CiOutputs outputs,
        CancellationToken ct, InvocationsAsk? invocations = null, History.HistoryLocation? history = null)
    {
        if (invocations is { Count: > 1 })
        {
            return await InvocationsRun.RunAsync(selected, choices, invocations, outputs, ct);
        }
        var (results, folder) = await LabRun.RunAsync(selected, choices, new ConsoleRunObserver(), Console.Out, ct);
        ReportWriters.WriteAll(results, folder);
        ConsoleRunObserver.PrintSummary(results, folder);
        var exit = outputs.Finish(results, folder, (int)ExitCodeOf(results, ct));
        return history is null ? exit : await HistoryCommand.AddAfterRunAsync(history, results, folder, exit, ct);
    }

    /// <summary>Interrupted, then a failed or incomplete run, then a failed gate: the most basic problem names the exit.</summary>
    public static ExitCode ExitCodeOf(RunResults results, CancellationToken ct)
    {
        if (results.Incomplete)
        {
            return ct.IsCancellationRequested ? ExitCode.Interrupted : ExitCode.Failed;
        }
        if (NotApplicable.RealFailures(results).Any())
        {
            return ExitCode.Failed;
        }
        return ThresholdGate.AllPassed(results.Thresholds) ? ExitCode.Success : ExitCode.ThresholdsFailed;
    }

    private static IReadOnlyList<ExperimentDefinition> Select(IReadOnlyList<ExperimentDefinition> all, string[] names)
    {
        if (names.Length == 0)
        {
            // Sweeps and other long experiments marked `default: false` run only when named.
            var defaults = all.Where(e => e.RunsByDefault).ToList();
            return defaults.Count > 0 || all.Count == 0
                ? defaults
                : throw new PerfLabException(
                    "every experiment here runs only when named (default: false); name one or "
                        + $"more: {string.Join(", ", all.Select(e => e.Name))}.",
                    ExitCode.Usage);
        }
        // An option the parser does not know lands among the experiment names: name it as the option it was meant to be.
        if (names.FirstOrDefault(n => n.StartsWith('-')) is { } option)
        {
            throw new PerfLabException(
                $"unknown option '{option}'; see `perflab run --help` for the options (the output folder is --out or -o).",
                ExitCode.Usage);
        }
        var unknown = names.Where(n => all.All(e => e.Name != n)).ToList();
        if (unknown.Count > 0)
        {
            throw new PerfLabException(
                $"unknown experiment{(unknown.Count > 1 ? "s" : "")} {string.Join(", ", unknown.Select(u => $"'{u}'"))}; "
                    + $"known: {string.Join(", ", all.Select(e => e.Name))}.",
                ExitCode.Usage);
        }
        return names.Distinct().Select(n => all.First(e => e.Name == n)).ToList();
    }
}
