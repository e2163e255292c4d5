using System.CommandLine;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Counters;
using PerfLab.Tracing;

namespace PerfLab.Cli;

/// <summary>`perflab trace collect`: an EventPipe trace (CPU samples, contention, GC) of a running .NET process.</summary>
public static class TraceCommand
{
    public static Command Create()
    {
        var command = new Command("trace", "Trace a running .NET process over EventPipe: CPU samples with stacks, lock contention, GC.");
        command.Subcommands.Add(CreateCollect());
        return command;
    }

    private static Command CreateCollect()
    {
        var target = new Argument<string>("target") { Description = "Process id or name of the .NET process." };
        var duration = new Option<string>("--duration", "-d")
        {
            Description = "How long to trace (10s, 2m); Ctrl+C stops early and keeps the file.",
            DefaultValueFactory = _ => "10s",
        };
        var output = new Option<string>("--out", "-o")
        {
            Description = "The .nettrace file to write.",
            DefaultValueFactory = _ => "trace.nettrace",
        };
        var command = new Command("collect", "Write a .nettrace of the process for a duration.");
        command.Arguments.Add(target);
        command.Options.Add(duration);
        command.Options.Add(output);
        command.SetAction(async (ParseResult pr, CancellationToken ct) =>
        {
            if (!DurationText.TryParse(pr.GetValue(duration), out var length) || length <= TimeSpan.Zero)
            {
                throw new PerfLabException($"--duration '{pr.GetValue(duration)}' is not a positive duration such as 10s or 2m.", ExitCode.Usage);
            }
            var process = DotnetProcesses.Resolve(pr.GetValue(target)!);
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
