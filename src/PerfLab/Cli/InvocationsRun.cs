using System.CommandLine;
using System.CommandLine.Parsing;
using System.Diagnostics;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Experiments.Running.Blocks;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Cli;

/// <summary>`--invocations N` as asked: how many, and the command line each child invocation repeats.</summary>
/// <param name="Arguments">The verb and its arguments without --invocations, --out, --budget and the CI outputs.</param>
internal sealed record InvocationsAsk(int Count, IReadOnlyList<string> Arguments)
{
    /// <summary>The command line as parsed, without the options the controller sets per child or keeps for itself.</summary>
    public static InvocationsAsk Of(ParseResult parse, Option<int> invocations, params Option[] dropped)
    {
        var drop = new HashSet<Token>(ReferenceEqualityComparer.Instance);
        foreach (var option in dropped.Append(invocations))
        {
            if (parse.GetResult(option) is { IdentifierToken: { } name } result)
            {
                drop.Add(name);
                drop.UnionWith(result.Tokens);
            }
        }
        return new InvocationsAsk(parse.GetValue(invocations), [.. parse.Tokens.Where(t => !drop.Contains(t)).Select(t => t.Value)]);
    }
}

/// <summary>
/// A run repeated as invocations: this process starts perflab again once per invocation (a fresh process, its own
/// JIT, thread pool and GC, fresh SUT processes, PostgreSQL brought to the same state before each block), each with
/// its share of the budget and its own folder (invocation-K), then pools their comparisons into one result
/// (<see cref="InvocationCombiner"/>) and writes the reports beside them. Ctrl+C stops the running invocation; the
/// finished ones are combined.
/// </summary>
internal static class InvocationsRun
{
    /// <param name="history">`--history`: the pooled result is added when the invocations end (each invocation runs without it).</param>
    public static async Task<int> RunAsync(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices, InvocationsAsk ask,
        CiOutputs outputs, HistoryTarget? history, CancellationToken ct)
    {
        InvocationShares.Check(selected, choices, ask.Count, choices.Budget.Left());
        var outDir = LabRun.OutputFolder(choices.Output);
        Directory.CreateDirectory(outDir);
        var done = new List<InvocationOutcome>();
        string? stopped = null;
        string? fewer = null;
        var (lastExit, count) = (0, ask.Count);
        for (var k = 1; k <= count && stopped is null; k++)
        {
            var left = choices.Budget.Left();
            var took = done.Select(d => d.Record.FinishedAt - d.Record.StartedAt).ToList();
            var fitting = InvocationShares.Fitting(left, took, count - k + 1);
            if (fitting < count - k + 1)
            {
                fewer = $"{k - 1 + fitting} of the {ask.Count} invocations asked for: the {k - 1} finished took "
                    + $"{RunOpening.Said(took.Max())} at most, longer than their share, and the {RunOpening.Said(left)} left held "
                    + $"{fitting} more at that pace";
                Console.WriteLine($"invocations: {fewer}");
                count = k - 1 + fitting;
                if (fitting == 0)
                {
                    break;
                }
            }
            var share = left / (count - k + 1);
            if (share < TimeSpan.FromSeconds(1))
            {
                stopped = $"the budget was spent before invocation {k} of {count}";
                break;
            }
            (var outcome, stopped, lastExit) = await RunOneAsync(k, count, ask, share, outDir, outputs.StdoutReserved, ct);
            if (outcome is not null)
            {
                done.Add(outcome);
            }
        }
        if (done.Count == 0)
        {
            Console.Error.WriteLine($"error: no invocation finished ({stopped}); nothing to combine.");
            return ct.IsCancellationRequested ? (int)ExitCode.Interrupted : Math.Max(lastExit, (int)ExitCode.Failed);
        }
        var settings = new AnalysisSettings(choices.Profile, choices.Repeat, choices.Aa, NoiseFloors.Load(), choices.Margin);
        var combined = LabRun.Gated(InvocationCombiner.Combine(done, selected, settings, stopped), selected, choices.Gates, choices.Margin);
        combined = fewer is null ? combined : combined with { Notes = [.. combined.Notes, "Budget: " + fewer + "."] };
        ReportWriters.WriteAll(combined, outDir);
        ConsoleRunObserver.PrintSummary(combined, outDir);
        var exit = outputs.Finish(combined, outDir, (int)RunCommand.ExitCodeOf(combined, ct));
        return history is null ? exit : await HistoryCommand.AddAfterRunAsync(history, combined, outDir, exit, ct);
    }

    /// <summary>Invocation <paramref name="k"/> run in its folder: its outcome, or why the invocations stop, and its exit code.</summary>
    private static async Task<(InvocationOutcome? Outcome, string? Stopped, int Exit)> RunOneAsync(int k, int count, InvocationsAsk ask,
        TimeSpan share, string outDir, bool stdoutReserved, CancellationToken ct)
    {
        var folder = $"invocation-{k}";
        Console.WriteLine($"invocation {k}/{count}: {Path.Combine(outDir, folder)} (budget {DurationText.Format(share)})");
        var started = DateTimeOffset.Now;
        var exit = await RunChildAsync([.. ask.Arguments, "--out", Path.Combine(outDir, folder)], share, stdoutReserved, ct);
        var results = Path.Combine(outDir, folder, ResultsJson.FileName);
        if (ct.IsCancellationRequested)
        {
            return (null, $"interrupted during invocation {k} of {count} (its partial results stay in {folder}, not pooled)", exit);
        }
        if (!File.Exists(results))
        {
            return (null, $"invocation {k} of {count} ended with exit code {exit} and no results", exit);
        }
        var read = ResultsJson.Read(results);
        var record = new InvocationRecord(k, folder, started, DateTimeOffset.Now, read.Incomplete, exit);
        return (new InvocationOutcome(record, read), null, exit);
    }

    /// <summary>
    /// One invocation: perflab itself (the same program, and the same dll when run by `dotnet`) with the console
    /// shared, its budget counted from its own start. Ctrl+C reaches it with the terminal's process group; a SIGINT sent
    /// to this process alone is passed on, so the child stops as it would have, writing what it measured.
    /// </summary>
    /// <param name="stdoutReserved">--json: the child's output lines are passed to stderr, where this process's go.</param>
    /// <param name="share">The child's budget, handed as the value itself (<see cref="TimeBudget.ForChild"/>).</param>
    private static async Task<int> RunChildAsync(IReadOnlyList<string> arguments, TimeSpan share, bool stdoutReserved,
        CancellationToken ct)
    {
        var self = Environment.ProcessPath ?? "dotnet";
        var info = new ProcessStartInfo(self) { UseShellExecute = false, RedirectStandardOutput = stdoutReserved };
        if (Path.GetFileNameWithoutExtension(self) == "dotnet")
        {
            info.ArgumentList.Add(typeof(InvocationsRun).Assembly.Location);
        }
        foreach (var argument in arguments)
        {
            info.ArgumentList.Add(argument);
        }
        // perflab itself, so its own tiering delay (ChildEnvironment), even when this process was started without it.
        info.Environment[ChildEnvironment.TieringMultiplier] = ChildEnvironment.Own;
        foreach (var (name, value) in TimeBudget.ForChild(share))
        {
            info.Environment[name] = value;
        }
        using var child = Process.Start(info) ?? throw new PerfLabException($"could not start {self}.", ExitCode.Environment);
        var relay = stdoutReserved ? RelayAsync(child.StandardOutput) : Task.CompletedTask;
        using (ct.Register(() => ProcessTree.Interrupt(child)))
        {
            await child.WaitForExitAsync(CancellationToken.None);
        }
        await relay;
        return child.ExitCode;
    }

    private static async Task RelayAsync(StreamReader output)
    {
        while (await output.ReadLineAsync(CancellationToken.None) is { } line)
        {
            Console.Error.WriteLine(line);
        }
    }
}
