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
        o.AddTo(command);
        command.SetAction((parse, ct) => RunAsync(parse, o, ct));
        return command;
    }

    private static async Task<int> RunAsync(ParseResult parse, RunOptions o, CancellationToken ct)
    {
        var all = ExperimentLoader.LoadFolder(o.Folder.Read(parse));
        var selected = Select(all, parse.GetValue(o.Names) ?? []);
        var gates = ThresholdOptions.Parse(parse.GetValue(o.Thresholds));
        ThresholdOptions.EnsureScenariosExist(gates, selected.SelectMany(e => e.Scenarios.Select(s => s.Name)));
        ThresholdOptions.EnsureIntervals(gates, selected, parse.GetValue(o.Profile), parse.GetValue(o.Repeat),
            parse.GetValue(o.Invocations));
        var history = await HistoryCommand.CheckBeforeRunAsync(parse.GetValue(o.History), parse.GetValue(o.Commit), ct);
        return await RunSelectedAsync(selected, new LabRunChoices(parse.GetValue(o.Profile))
        {
            Repeat = parse.GetValue(o.Repeat), Aa = parse.GetValue(o.Aa), Output = parse.GetValue(o.Output), Pin = o.Pin.Read(parse),
            Precision = parse.GetValue(o.Precision), Budget = RunTuningOptions.BudgetOf(parse, o.Budget), Trace = o.Trace.Read(parse),
            KeepTraces = parse.GetValue(o.KeepTraces), Connection = parse.GetValue(o.Connection), DataDir = parse.GetValue(o.DataDir),
            Gates = gates, Margin = parse.GetValue(o.Margin),
            Hosts = HostsOption.Read(parse, o.Hosts),
        }, o.Ci.Begin(parse, "run"), ct,
            InvocationsAsk.Of(parse, o.Invocations, o.Output, o.Budget, o.Ci.Junit, o.Ci.Json, o.History, o.Commit), history);
    }

    /// <summary>
    /// Runs the given experiments (from files, or built from `perflab
    /// compare`'s command line), writes the reports, names the exit.
    /// </summary>
    /// <param name="outputs">--junit, --json and the CI step summary, written after the reports.</param>
    /// <param name="invocations">`--invocations`: more than one repeats the run in child processes and pools them.</param>
    /// <param name="history">`--history`: the history the run is added to when it ends (checked before it starts); with
    /// invocations the pooled result, not each invocation.</param>
    internal static async Task<int> RunSelectedAsync(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices, CiOutputs outputs,
        CancellationToken ct, InvocationsAsk? invocations = null, HistoryTarget? history = null)
    {
        if (invocations is { Count: > 1 })
        {
            return await InvocationsRun.RunAsync(selected, choices, invocations, outputs, history, ct);
        }
        var (results, folder) = await LabRun.RunAsync(selected, choices, new ConsoleRunObserver(), ct);
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
