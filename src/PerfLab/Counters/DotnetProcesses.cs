using System.Diagnostics;
using System.Globalization;
using Microsoft.Diagnostics.NETCore.Client;
using PerfLab.Common;

namespace PerfLab.Counters;

/// <summary>A .NET process that publishes a diagnostics port and so can be attached to.</summary>
public sealed record DotnetProcess(int ProcessId, string Name, string? CommandLine);

/// <summary>Finds attachable .NET processes and resolves a "pid or name" argument to one of them.</summary>
public static class DotnetProcesses
{
    public static IReadOnlyList<DotnetProcess> List()
    {
        var list = new List<DotnetProcess>();
        foreach (var pid in PublishedProcesses())
        {
            var described = Describe(pid);
            if (described is not null)
            {
                list.Add(described);
            }
        }
        return list;
    }

    /// <summary>
    /// A pid, or a name matched against the process name and the app dll of `dotnet app.dll` (so "PerfLab.Sut" finds
    /// the SUT). Throws <see cref="PerfLabException"/>: Unreachable when nothing matches or the process is not .NET,
    /// Usage when a name is ambiguous.
    /// </summary>
    public static DotnetProcess Resolve(string pidOrName)
    {
        if (int.TryParse(pidOrName, NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
        {
            return EnsureAttachable(pid);
        }

        var matches = List().Where(p => Matches(p, pidOrName)).ToList();
        return matches.Count switch
        {
            0 => throw new PerfLabException(
                $"no .NET process named '{pidOrName}' can be attached to; 'perflab counters ps' lists those that can.",
                ExitCode.Unreachable),
            1 => matches[0],
            _ => throw new PerfLabException(
                $"'{pidOrName}' matches {matches.Count} processes "
                    + $"({string.Join(", ", matches.Select(m => m.ProcessId.ToString(CultureInfo.InvariantCulture)))}); give the pid.",
                ExitCode.Usage),
        };
    }

    public static DotnetProcess EnsureAttachable(int pid)
    {
        var described = Describe(pid)
            ?? throw new PerfLabException($"no process with id {pid.ToString(CultureInfo.InvariantCulture)}.", ExitCode.Unreachable);
        if (!PublishedProcesses().Contains(pid))
        {
            throw new PerfLabException(
                $"process {pid.ToString(CultureInfo.InvariantCulture)} ({described.Name}) is not a .NET process with a diagnostics port " +
                "(not .NET, or started with DOTNET_EnableDiagnostics=0, or owned by another user).",
                ExitCode.Unreachable);
        }
        return described;
    }

    public static bool IsAlive(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            return !process.HasExited && !IsZombie(pid);
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException)
        {
            return false;
        }
    }

    // An exited process nobody has reaped yet still answers kill(pid, 0); its state in /proc says it is gone.
    private static bool IsZombie(int pid)
    {
        try
        {
            return ProcStat.Read($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/stat").State is 'Z' or 'X';
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException)
        {
            return false;
        }
    }

    /// <summary>
    /// The runtime version of the target, read from the folder of the coreclr it mapped
    /// (shared/Microsoft.NETCore.App/10.0.12/...); null for a self-contained app or when the maps cannot be read.
    /// </summary>
    public static Version? RuntimeVersion(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            foreach (ProcessModule module in process.Modules)
            {
                var file = module.ModuleName;
                if (file is "libcoreclr.so" or "coreclr.dll" or "libcoreclr.dylib")
                {
                    var folder = Path.GetFileName(Path.GetDirectoryName(module.FileName));
                    var release = folder?.Split('-')[0];
                    return Version.TryParse(release, out var version) ? version : null;
                }
            }
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException or System.ComponentModel.Win32Exception
            or NotSupportedException)
        {
        }
        return null;
    }

    /// <summary>Pids with a diagnostics port, in order.</summary>
    public static IReadOnlyList<int> PublishedProcesses()
    {
        try
        {
            return DiagnosticsClient.GetPublishedProcesses().Distinct().Order().ToList();
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            // The client reads /proc/<pid>/environ of every process to find container temp folders, and fails on the
            // first it may not read (kernel threads in a sandbox). Our own scan covers processes sharing our temp folder.
            return ScanTempFolder();
        }
    }

    private static List<int> ScanTempFolder()
    {
        var pids = new SortedSet<int>();
        try
        {
            foreach (var socket in Directory.EnumerateFiles(Path.GetTempPath(), "dotnet-diagnostic-*-socket"))
            {
                var parts = Path.GetFileName(socket).Split('-');
                if (parts.Length >= 4 && int.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out var pid)
                    && IsAlive(pid))
                {
                    pids.Add(pid);
                }
            }
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
        }
        return [.. pids];
    }

    private static bool Matches(DotnetProcess process, string name) =>
        string.Equals(process.Name, name, StringComparison.OrdinalIgnoreCase)
        || (process.CommandLine is { } cmd && cmd.Split(' ').Any(arg =>
            string.Equals(Path.GetFileNameWithoutExtension(arg), name, StringComparison.OrdinalIgnoreCase)
            && arg.EndsWith(".dll", StringComparison.OrdinalIgnoreCase)));

    private static DotnetProcess? Describe(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            return new DotnetProcess(pid, process.ProcessName, CommandLine(pid));
        }
        catch (Exception ex) when (ex is ArgumentException or InvalidOperationException)
        {
            return null;
        }
    }

    private static string? CommandLine(int pid)
    {
        var path = $"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/cmdline";
        try
        {
            return File.Exists(path) ? File.ReadAllText(path).Replace('\0', ' ').Trim() : null;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
