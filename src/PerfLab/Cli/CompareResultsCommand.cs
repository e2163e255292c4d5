using System.CommandLine;
using PerfLab.Common;
using PerfLab.Reports;
using Spectre.Console;

namespace PerfLab.Cli;

// Two result folders side by side: the same experiment, variant and scenario matched up, B against A.
public static class CompareResultsCommand
{
    public static Command Create()
    {
        var a = new Argument<string>("A") { Description = "The result folder to compare against (the reference)." };
        var b = new Argument<string>("B") { Description = "The result folder whose change against A is shown." };
        var output = new Option<string?>("--out", "-o")
        {
            Description = "Write the comparison as Markdown to this file (overwritten) instead of the terminal.",
        };

        var command = new Command("compare-results",
            "Compare two result folders: RPS and mean latency of each experiment, variant and scenario, B against A, with a verdict.");
        command.Arguments.Add(a);
        command.Arguments.Add(b);
        command.Options.Add(output);
        command.SetAction((ParseResult pr, CancellationToken ct) =>
        {
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
            var comparison = ResultsComparison.Compare(resultsA, resultsB, labelA, labelB);

            var outPath = pr.GetValue(output);
            if (outPath is not null)
            {
                var parent = Path.GetDirectoryName(Path.GetFullPath(outPath))!;
                if (!Directory.Exists(parent))
                {
                    throw new PerfLabException($"cannot write '{outPath}': folder '{parent}' does not exist.", ExitCode.Usage);
                }
                ReportWriters.WriteFile(outPath, w => ComparisonWriter.WriteMarkdown(comparison, w));
                Console.WriteLine(outPath);
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
            return Task.FromResult((int)ExitCode.Success);
        });
        return command;
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
