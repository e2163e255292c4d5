using System.Globalization;
using Microsoft.Diagnostics.NETCore.Client;
using PerfLab.Counters;

namespace PerfLab.Apps;

/// <summary>What a running .NET process shows from outside: its environment, GC mode, runtime and command line.</summary>
/// <param name="Environment">Read over the diagnostics IPC (the runtime's own copy); null when it could not be read.</param>
/// <param name="EnvironmentError">Why the environment could not be read.</param>
/// <param name="ServerGcThreads">Threads named ".NET Server GC": the runtime starts them only for server GC.</param>
public sealed record ProcessView(
    IReadOnlyDictionary<string, string>? Environment,
    string? EnvironmentError,
    int? ServerGcThreads,
    string? Runtime,
    IReadOnlyList<string> CommandLine);

/// <summary>
/// Reads a process's <see cref="ProcessView"/>. The GC mode comes from the runtime's own thread names
/// (/proc/PID/task/*/comm): server GC runs dedicated ".NET Server GC" threads, workstation GC none, and that holds
/// whatever asked for it (environment, runtimeconfig.json, project file) and whatever overrode it (one CPU turns a
/// server GC request into workstation GC). GC events would need a collection to happen first; the threads exist from
/// the start.
/// </summary>
public static class RuntimeObservation
{
    public const string ServerGcThreadName = ".NET Server GC";

    private static readonly TimeSpan IpcTimeout = TimeSpan.FromSeconds(10);

    public static async Task<ProcessView> ReadAsync(int pid, CancellationToken ct)
    {
        var (environment, error) = await EnvironmentAsync(pid, ct);
        return new ProcessView(environment, error, ServerGcThreads(pid),
            DotnetProcesses.RuntimeVersion(pid)?.ToString(), CommandLine(pid));
    }

    private static async Task<(IReadOnlyDictionary<string, string>?, string?)> EnvironmentAsync(int pid, CancellationToken ct)
    {
        try
        {
            var read = Task.Run(() => new DiagnosticsClient(pid).GetProcessEnvironment(), ct);
            if (await Task.WhenAny(read, Task.Delay(IpcTimeout, ct)) != read)
            {
                return (null, $"the diagnostics IPC did not answer within {IpcTimeout.TotalSeconds:0} s");
            }
            return (await read, null);
        }
        catch (Exception ex) when (ex is ServerNotAvailableException or DiagnosticsClientException or IOException
            or TimeoutException or UnauthorizedAccessException)
        {
            return (null, $"the diagnostics IPC failed: {ex.Message}");
        }
    }

    /// <summary>The number of ".NET Server GC" threads; null when the process's threads cannot be read.</summary>
    public static int? ServerGcThreads(int pid)
    {
        try
        {
            return Directory.EnumerateDirectories($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/task")
                .Count(task => ReadComm(task) == ServerGcThreadName);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    private static string? ReadComm(string taskFolder)
    {
        try
        {
            return File.ReadAllText(Path.Combine(taskFolder, "comm")).TrimEnd('\n');
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null; // the thread ended while the folder was read
        }
    }

    /// <summary>The process's arguments from /proc/PID/cmdline, program first; empty when it cannot be read.</summary>
    public static IReadOnlyList<string> CommandLine(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/cmdline")
                .Split('\0', StringSplitOptions.RemoveEmptyEntries);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return [];
        }
    }
}
