using System.CommandLine;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Reports;
using PerfLab.Results;
using Spectre.Console;

namespace PerfLab.Cli;

// Two result folders side by side: the same experiment, variant and scenario matched up, B against A.
public static class CompareResultsCommand
{
    private const string ThresholdsHelp =
        "A CI gate: \"p99<250ms\", \"errors<1%\", \"rps>1000\" on B; \"change>-5%\" (each figure of the deciding metric, B "
            + "against A, better positive; \"rps-change>-5%\" for RPS alone), \"no-worse\" or \"no-worse(3%)\"; repeatable. "
            + ThresholdOptions.IntervalReading + "A folder from one repetition has no interval: such gates fail on it. "
            + "A failing gate exits with 5.";

    public static Command Create()
    {
        var a = new Argument<string>("A") { Description = "The result folder to compare against (the reference)." };
        var b = new Argument<string>("B") { Description = "The result folder whose change against A is shown." };
        var output = new Option<string?>("--out", "-o")
        {
            Description = "Write the comparison as Markdown to this file (a file, not a folder; overwritten) instead of the terminal.",
            HelpName = "file",
        };
        var html = new Option<string?>("--html")
        {
            Description = "Also write the comparison as one offline HTML page to this file (overwritten).",
            HelpName = "file",
        };
        var thresholds = ThresholdOptions.Create(ThresholdsHelp);
        var margin = ThresholdOptions.Margin();

        var command = new Command("compare-results",
            "Compare two result folders: RPS, mean and p99 latency, CPU per request (where measured) and errors of each experiment, "
                + "variant and scenario, B against A, with "
                + "a verdict; optionally gated by thresholds.");
        command.Arguments.Add(a);
        command.Arguments.Add(b);
        foreach (var option in new Option[] { output, html, thresholds, margin })
        {
            command.Options.Add(option);
        }
        var ci = new OutputOptions();
        ci.AddTo(command);
        command.SetAction((ParseResult pr, CancellationToken ct) =>
        {
            var gates = ThresholdOptions.Parse(pr.GetValue(thresholds)).Select(g => g.WithMargin(pr.GetValue(margin))).ToList();
            var outputs = ci.Begin(pr, "compare-results");
            var outPath = pr.GetValue(output);
            var htmlPath = pr.GetValue(html);
            EnsureParent(outPath);
            EnsureParent(htmlPath);
            var dirA = pr.GetValue(a)!;
            var dirB = pr.GetValue(b)!;
            var resultsA = ResultsJson.ReadFolder(dirA);
            var resultsB = ResultsJson.ReadFolder(dirB);
            ct.ThrowIfCancellationRequested();
            var (labelA, labelB) = (Label(dirA), Label(dirB));
            if (labelA == labelB)
            {
                (labelA, labelB) = (dirA, dirB);
            }
            var comparison = ResultsComparer.Compare(resultsA, resultsB, labelA, labelB).WithGates(gates);
            Write(comparison, outPath, htmlPath);
            var exit = (int)(ThresholdGate.AllPassed(comparison.Thresholds) ? ExitCode.Success : ExitCode.ThresholdsFailed);
            return Task.FromResult(outputs.Finish(CiSummary.Of(comparison, exit) with
            {
                Reports = [.. new[] { outPath, htmlPath }.OfType<string>()],
            }));
        });
        return command;
    }

    private static void Write(ResultsComparison comparison, string? outPath, string? htmlPath)
    {
        if (htmlPath is not null)
        {
            ReportWriters.WriteFile(htmlPath, w => ComparisonHtmlWriter.Write(comparison, w));
        }
        if (outPath is not null)
        {
            ReportWriters.WriteFile(outPath, w => ComparisonWriter.WriteMarkdown(comparison, w));
            // The files hold the tables; the terminal (a CI log) still says whether the gates held.
            ThresholdSection.WriteText(Console.Out, comparison.Thresholds);
        }
        else if (Console.IsOutputRedirected)
        {
            var stdout = Console.Out;
            ComparisonWriter.WriteMarkdown(comparison, stdout);
            stdout.Flush();
        }
        else
        {
            ComparisonWriter.WriteConsole(comparison, AnsiConsole.Console);
        }
        foreach (var path in new[] { outPath, htmlPath }.OfType<string>())
        {
            Console.WriteLine(path);
        }
    }

    private static void EnsureParent(string? path)
    {
        if (path is null)
        {
            return;
        }
        var parent = Path.GetDirectoryName(Path.GetFullPath(path))!;
        if (!Directory.Exists(parent))
        {
            throw new PerfLabException($"cannot write '{path}': folder '{parent}' does not exist.", ExitCode.Usage);
        }
    }

    // The folder's own name ("20250102-100000") tells the two apart better than "A" and "B".
    private static string Label(string path)
    {
        var full = Path.GetFullPath(path).TrimEnd(Path.DirectorySeparatorChar);
        if (File.Exists(full))
        {
            full = Path.GetDirectoryName(full)!;
        }
        return Path.GetFileName(full);
    }
}
