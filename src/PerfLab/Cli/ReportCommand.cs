using System.CommandLine;
using PerfLab.Common;
using PerfLab.Experiments.Analysis;
using PerfLab.Reports;

namespace PerfLab.Cli;

// Re-renders the reports of a result folder from its results.json (after a perflab upgrade, or in another format).
public static class ReportCommand
{
    public static Command Create()
    {
        var folder = new Argument<string>("dir")
        {
            Description = "A result folder written by 'perflab run' (it holds results.json).",
        };
        var format = new Option<string>("--format")
        {
            Description = "Which reports to write, comma-separated: md, html, json (json rewrites results.json itself).",
            DefaultValueFactory = _ => "md,html",
        };

        var command = new Command("report", "Re-render report.md and report.html of a result folder from its results.json.");
        command.Arguments.Add(folder);
        command.Options.Add(format);
        command.Options.Add(Spellings.RetiredLetter("-f", "--format", "-f is --framework on sut, as dotnet has it"));
        command.SetAction((ParseResult pr, CancellationToken ct) =>
        {
            var dir = pr.GetValue(folder)!;
            var writers = ReportWriters.ForFormats(pr.GetValue(format)!);
            // The notes are derived text: re-derived so an older results.json is rendered as today's perflab words them.
            var read = ResultsJson.ReadFolder(dir);
            var results = read with { Notes = CeilingNotes.Of(read.Experiments) };
            ct.ThrowIfCancellationRequested();
            var target = File.Exists(dir) ? Path.GetDirectoryName(Path.GetFullPath(dir))! : dir;
            foreach (var path in ReportWriters.WriteAll(results, target, writers))
            {
                Console.WriteLine(path);
            }
            return Task.FromResult((int)ExitCode.Success);
        });
        return command;
    }
}
