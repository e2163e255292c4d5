using System.CommandLine;
using PerfLab.Common;
using PerfLab.Micro;

namespace PerfLab.Cli;

// perflab micro [filter...] [--quick] [--out DIR]: the seed 002 BenchmarkDotNet suite, compared with the seed's tables.
public static class MicroCommand
{
    public static Command Create()
    {
        var filters = new Argument<string[]>("filter")
        {
            Description = "Benchmarks to run: globs on Class.Method (e.g. '*IndexOfAny*'); a plain word matches names "
                + "that contain it. Default: all.",
            Arity = ArgumentArity.ZeroOrMore,
        };
        var quick = new Option<bool>("--quick")
        {
            Description = "A short job (1 launch, 3 warm-ups, 7 iterations of 150 ms): the whole suite in about two "
                + "minutes, with wider errors. Default: BenchmarkDotNet's default job.",
        };
        var outDir = new Option<string?>("--out")
        {
            Description = "Folder for summary.md, tables.md and BenchmarkDotNet's artifacts. Default: "
                + "results/micro/<UTC time> under the current folder.",
        };

        var command = new Command("micro", "Run the seed 002 microbenchmarks (BenchmarkDotNet) and set each ratio beside the seed's.");
        command.Arguments.Add(filters);
        command.Options.Add(quick);
        command.Options.Add(outDir);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
            (int)await RunAsync(pr.GetValue(filters) ?? [], pr.GetValue(quick), pr.GetValue(outDir), ct));
        return command;
    }

    private static async Task<ExitCode> RunAsync(string[] chosen, bool isQuick, string? outDir, CancellationToken ct)
    {
        var output = outDir
            ?? Path.Combine("results", "micro", DateTime.UtcNow.ToString("yyyyMMdd-HHmmss",
                System.Globalization.CultureInfo.InvariantCulture));

        var suite = MicroSuite.Locate(new InlineProgress<string>(Console.Error.WriteLine));
        var (available, selected) = await suite.PrepareAsync(chosen, ct);

        var commandLine = string.Join(" ", new[] { "perflab", "micro" }
            .Concat(chosen.Select(f => f.Contains(' ') || f.Contains('*') || f.Contains('?') ? $"'{f}'" : f))
            .Concat(isQuick ? ["--quick"] : []));
        var outcome = await suite.RunAsync(new MicroRunOptions(selected, isQuick, output, commandLine), available, ct);
        return Report(outcome);
    }

    private static ExitCode Report(MicroRunOutcome outcome)
    {
        Console.Out.Write(outcome.Summary);
        Console.Error.WriteLine($"micro: wrote {outcome.SummaryPath} and {outcome.TablesPath}");
        if (outcome.Interrupted)
        {
            Console.Error.WriteLine("interrupted.");
            return ExitCode.Interrupted;
        }
        if (!outcome.Complete)
        {
            var failure = outcome.Hung is { } hung
                ? hung.TrimEnd('.')
                : $"BenchmarkDotNet exited with code {outcome.BenchmarkDotNetExitCode}";
            var notMeasured = outcome.NotMeasured.Count == 0 ? "-" : string.Join(", ", outcome.NotMeasured.Select(MicroFilter.ShortName));
            Console.Error.WriteLine($"error: {failure}; "
                + $"not measured: {notMeasured}. "
                + "See benchmarkdotnet.log in the output folder.");
            return ExitCode.Failed;
        }
        return ExitCode.Success;
    }
}
