using System.CommandLine;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Tracing;

namespace PerfLab.Cli;

/// <summary>
/// `perflab trace collect`: an EventPipe trace (CPU samples, contention, GC) of a running .NET process;
/// `perflab trace report`: what such a trace shows (CPU by component, lock call sites, blocking waits, GC share) and flame-graph files.
/// </summary>
public static class TraceCommand
{
    public static Command Create()
    {
        var command = new Command("trace", "Trace a running .NET process over EventPipe: CPU samples with stacks, lock contention, GC.");
        command.Subcommands.Add(CreateCollect());
        command.Subcommands.Add(CreateReport());
        return command;
    }

    private static Command CreateReport()
    {
        var file = new Argument<string>("file") { Description = "The .nettrace file (from `perflab trace collect`)." };
        var appNamespace = new Option<string>("--app-namespace")
        {
            Description = "Namespace of the app's own code: its frames count as the App component.",
            DefaultValueFactory = _ => "PerfLab.Sut",
        };
        var appModule = new Option<string?>("--app-module")
        {
            Description = "The app's main assembly name (e.g. TinyShop): its frames count as App too, whatever their namespace (top-level "
                + "statements, minimal-API lambdas).",
        };
        var requests = new Option<long>("--requests")
        {
            Description = "Requests the app completed while the trace ran: adds per-request figures (blocked time per request "
                + "comes from the trace's own request events when it has them).",
            DefaultValueFactory = _ => 0,
        };
        var top = new Option<int>("--top") { Description = "How many of the heaviest CPU stacks to keep.", DefaultValueFactory = _ => 20 };
        var output = new Option<string?>("--out", "-o")
        {
            Description = "The folder (not a file) for NAME.folded and NAME.speedscope.json (default: the trace's folder).",
            HelpName = "folder",
        };
        var command = new Command("report", "Explain a .nettrace: CPU by component, lock contention and blocking waits by "
            + "call site, GC share, findings.");
        command.Arguments.Add(file);
        command.Options.Add(appNamespace);
        command.Options.Add(appModule);
        command.Options.Add(requests);
        command.Options.Add(top);
        command.Options.Add(output);
        command.SetAction((ParseResult pr) =>
        {
            var path = Path.GetFullPath(pr.GetValue(file)!);
            var count = pr.GetValue(requests);
            var topStacks = pr.GetValue(top);
            if (count < 0 || topStacks < 1)
            {
                throw new PerfLabException("--requests must be 0 or more and --top 1 or more.", ExitCode.Usage);
            }
            var profile = TraceAnalysis.Analyze(path, new TraceAnalysisOptions(pr.GetValue(appNamespace)!, topStacks,
                AppModule: pr.GetValue(appModule)));
            var findings = TraceFindings.From(profile, count);
            var name = Path.GetFileNameWithoutExtension(path);
            Console.Out.Write(TraceReportText.Render(Path.GetFileName(path), profile, findings, count));
            WriteExports(pr.GetValue(output) ?? Path.GetDirectoryName(path)!, name, profile);
            return (int)ExitCode.Success;
        });
        return command;
    }

    private static void WriteExports(string folder, string name, TraceProfile profile)
    {
        try
        {
            Directory.CreateDirectory(folder);
            var folded = Path.Combine(folder, name + ".folded");
            var speedscope = Path.Combine(folder, name + ".speedscope.json");
            File.WriteAllText(folded, StackExports.Collapsed(profile.Stacks));
            File.WriteAllText(speedscope, StackExports.Speedscope(profile.Stacks, name));
            Console.Out.WriteLine($"wrote {folded} and {speedscope}");
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new PerfLabException($"cannot write the stack files to {folder}: {ex.Message}", ExitCode.Environment, ex);
        }
    }

    private static Command CreateCollect()
    {
        var target = new ProcessTarget();
        var duration = new Option<string>("--duration", "-d")
        {
            Description = "How long to trace (10s, 2m); Ctrl+C stops early and keeps the file.",
            HelpName = "duration",
            DefaultValueFactory = _ => "10s",
        };
        var output = new Option<string>("--out", "-o")
        {
            Description = "The .nettrace file to write (a file, not a folder).",
            HelpName = "file",
            DefaultValueFactory = _ => "trace.nettrace",
        };
        var command = new Command("collect", "Write a .nettrace of the process for a duration.");
        target.AddTo(command);
        command.Options.Add(duration);
        command.Options.Add(output);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            if (!DurationText.TryParse(pr.GetValue(duration), out var length) || length <= TimeSpan.Zero)
            {
                throw new PerfLabException($"--duration '{pr.GetValue(duration)}' is not a positive duration such as 10s or 2m.",
                    ExitCode.Usage);
            }
            var spec = target.Read(pr);
            await using var opened = await ProcessTarget.OpenAsync(spec, ct);
            var process = opened.Process;
            var path = Path.GetFullPath(pr.GetValue(output)!);
            Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"tracing {process.ProcessId} ({process.Name}) for {DurationText.Format(length)} -> {path}"));
            var bytes = await TraceSession.CollectAsync(new TraceOptions(process.ProcessId, length, path), ct);
            Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture, $"wrote {bytes / 1024.0:F0} KB to {path}"));
            return (int)(ct.IsCancellationRequested ? ExitCode.Interrupted : ExitCode.Success);
        });
        return command;
    }
}
