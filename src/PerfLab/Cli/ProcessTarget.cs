using System.CommandLine;
using System.CommandLine.Parsing;
using System.Diagnostics;
using System.Globalization;
using PerfLab.Common;
using PerfLab.Counters;

namespace PerfLab.Cli;

/// <summary>
/// The process a diagnostics verb reads, given as dotnet-counters and dotnet-trace take it: a positional id or name,
/// `-p/--process-id`, `-n/--name`, or `-- COMMAND ARGS...` to launch a .NET app and read it from its start.
/// </summary>
internal sealed class ProcessTarget
{
    private static readonly TimeSpan AttachWait = TimeSpan.FromSeconds(30);

    public Argument<string[]> Positional { get; } = new("process")
    {
        Description = "Process id or name (the process name or the app dll of `dotnet app.dll`, e.g. PerfLab.Sut); " +
                      "or give -p, -n, or `-- COMMAND ARGS...` to start a .NET app and read it from its start.",
        Arity = ArgumentArity.ZeroOrMore,
    };

    public Option<int?> ProcessId { get; } = new("--process-id", "-p")
    {
        Description = "The process id, as dotnet-counters and dotnet-trace take it.",
        HelpName = "pid",
    };

    public Option<string?> Name { get; } = new("--name", "-n")
    {
        Description = "The process name, as dotnet-counters and dotnet-trace take it.",
        HelpName = "name",
    };

    public void AddTo(Command command)
    {
        command.Arguments.Add(Positional);
        command.Options.Add(ProcessId);
        command.Options.Add(Name);
    }

    /// <summary>What was asked, checked: exactly one way of naming the process.</summary>
    public TargetSpec Read(ParseResult parse)
    {
        var values = parse.GetValue(Positional) ?? [];
        // Everything after `--` is the command to launch; System.CommandLine hands it over as more positional values.
        var command = parse.Tokens.SkipWhile(t => t.Type != TokenType.DoubleDash).Skip(1).Select(t => t.Value).ToList();
        var positional = values.Take(values.Length - command.Count).ToList();
        var given = new[] { positional.Count > 0, parse.GetValue(ProcessId) is not null, parse.GetValue(Name) is not null,
            command.Count > 0 }.Count(g => g);
        if (given != 1 || positional.Count > 1)
        {
            throw new PerfLabException(
                "name the process once: a pid or name, -p PID, -n NAME, or -- COMMAND ARGS... to start one (e.g. `-- dotnet app.dll`).",
                ExitCode.Usage);
        }
        return new TargetSpec(
            parse.GetValue(ProcessId)?.ToString(CultureInfo.InvariantCulture) ?? parse.GetValue(Name) ?? positional.FirstOrDefault(),
            command);
    }

    /// <summary>Attaches to the process named, or launches the command and waits until its diagnostics port is up.</summary>
    public static async Task<TargetProcess> OpenAsync(TargetSpec spec, CancellationToken ct)
    {
        if (spec.Command.Count == 0)
        {
            return new TargetProcess(DotnetProcesses.Resolve(spec.PidOrName!), null);
        }
        var launched = ProcessRunner.Launch(new ProcessSpec(spec.Command[0], [.. spec.Command.Skip(1)]));
        var target = new TargetProcess(null!, launched);
        var clock = Stopwatch.StartNew();
        while (true)
        {
            if (launched.HasExited)
            {
                await target.DisposeAsync();
                throw new PerfLabException($"'{string.Join(' ', spec.Command)}' exited with {launched.ExitCode} before it could be read.",
                    ExitCode.Unreachable);
            }
            if (DotnetProcesses.PublishedProcesses().Contains(launched.Id))
            {
                return target with { Process = DotnetProcesses.EnsureAttachable(launched.Id) };
            }
            if (clock.Elapsed > AttachWait || ct.IsCancellationRequested)
            {
                await target.DisposeAsync();
                throw new PerfLabException(
                    $"'{spec.Command[0]}' (pid {launched.Id.ToString(CultureInfo.InvariantCulture)}) opened no diagnostics port " +
                    $"within {AttachWait.TotalSeconds:0} s: " +
                    "the command must be the .NET app itself (e.g. dotnet app.dll, or a script that execs it).",
                    ExitCode.Unreachable);
            }
            await Task.Delay(50, CancellationToken.None);
        }
    }
}

/// <summary>How the process was named: a pid or name, or a command to launch.</summary>
internal sealed record TargetSpec(string? PidOrName, IReadOnlyList<string> Command);

/// <summary>The process read; a launched one is stopped (with its children) when the verb is done with it.</summary>
internal sealed record TargetProcess(DotnetProcess Process, Process? Launched) : IAsyncDisposable
{
    public async ValueTask DisposeAsync()
    {
        if (Launched is { } launched)
        {
            if (!launched.HasExited)
            {
                await ProcessTree.StopAsync(launched, TimeSpan.FromSeconds(5));
            }
            launched.Dispose();
        }
    }
}
