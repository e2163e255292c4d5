using System.CommandLine;
using System.CommandLine.Parsing;
using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Reports;
using PerfLab.Results;

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
    public static async Task<int> RunAsync(IReadOnlyList<ExperimentDefinition> selected, LabRunChoices choices, InvocationsAsk ask,
        CiOutputs outputs, CancellationToken ct)
    {
        var outDir = LabRun.OutputFolder(choices.Output);
        Directory.CreateDirectory(outDir);
        var budget = choices.Budget ?? TimeSpan.FromMinutes(20);
        var done = new List<InvocationOutcome>();
        string? stopped = null;
        var lastExit = 0;
        for (var k = 1; k <= ask.Count && stopped is null; k++)
        {
            var share = (budget - (DateTimeOffset.Now - Invocation.StartedAt)) / (ask.Count - k + 1);
            if (share < TimeSpan.FromSeconds(1))
            {
                stopped = $"the budget was spent before invocation {k} of {ask.Count}";
                break;
            }
            var folder = $"invocation-{k}";
            Console.WriteLine($"invocation {k}/{ask.Count}: {Path.Combine(outDir, folder)} (budget {DurationText.Format(share)})");
            var started = DateTimeOffset.Now;
            lastExit = await RunChildAsync([.. ask.Arguments, "--out", Path.Combine(outDir, folder), "--budget", Seconds(share)],
                outputs.StdoutReserved, ct);
            var results = Path.Combine(outDir, folder, ResultsJson.FileName);
            if (ct.IsCancellationRequested)
            {
                stopped = $"interrupted during invocation {k} of {ask.Count} (its partial results stay in {folder}, not pooled)";
            }
            else if (File.Exists(results))
            {
                var read = ResultsJson.Read(results);
                var record = new InvocationRecord(k, folder, started, DateTimeOffset.Now, read.Incomplete, lastExit);
                done.Add(new InvocationOutcome(record, read));
            }
            else
            {
                stopped = $"invocation {k} of {ask.Count} ended with exit code {lastExit} and no results";
            }
        }
        if (done.Count == 0)
        {
            Console.Error.WriteLine($"error: no invocation finished ({stopped}); nothing to combine.");
            return ct.IsCancellationRequested ? (int)ExitCode.Interrupted : Math.Max(lastExit, (int)ExitCode.Failed);
        }
        var settings = new AnalysisSettings(choices.Profile, choices.Repeat, choices.Aa, NoiseFloors.Load());
        var combined = LabRun.Gated(InvocationCombiner.Combine(done, selected, settings, stopped), selected, choices.Gates);
        ReportWriters.WriteAll(combined, outDir);
        ConsoleRunObserver.PrintSummary(combined, outDir);
        return outputs.Finish(combined, outDir, (int)RunCommand.ExitCodeOf(combined, ct));
    }

    /// <summary>
    /// One invocation: perflab itself (the same program, and the same dll when run by `dotnet`) with the console
    /// shared, its budget counted from its own start. Ctrl+C reaches it with the terminal's process group; a SIGINT sent
    /// to this process alone is passed on, so the child stops as it would have, writing what it measured.
    /// </summary>
    /// <param name="stdoutReserved">--json: the child's output lines are passed to stderr, where this process's go.</param>
    private static async Task<int> RunChildAsync(IReadOnlyList<string> arguments, bool stdoutReserved, CancellationToken ct)
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
        info.Environment[PerfLabSettings.InvokedAt] = DateTimeOffset.Now.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture);
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

    private static string Seconds(TimeSpan share) =>
        Math.Max(1, (int)Math.Floor(share.TotalSeconds)).ToString(CultureInfo.InvariantCulture) + "s";
}
