using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

namespace PerfLab.Common;

// Ending a child process and everything it started. A polite stop (SIGTERM) lets an ASP.NET Core app shut down
// cleanly; a kill takes the whole tree, because `dotnet build`, BenchmarkDotNet and `dotnet publish` start processes
// of their own that would otherwise outlive perflab.
internal static class ProcessTree
{
    private const int SigTerm = 15;
    private const int SigInt = 2;
    private static readonly TimeSpan KillGrace = TimeSpan.FromSeconds(5);

    // Kills the tree and waits (briefly) until the process has exited.
    public static async Task KillAsync(Process process)
    {
        try
        {
            process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            // It exited on its own meanwhile.
        }
        using var grace = new CancellationTokenSource(KillGrace);
        await process.WaitForExitAsync(grace.Token).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
    }

    // SIGTERM, then a kill of the whole tree once grace has passed.
    public static async Task StopAsync(Process process, TimeSpan grace)
    {
        try
        {
            if (process.HasExited)
            {
                return;
            }
            _ = Kill(process.Id, SigTerm);
            using var wait = new CancellationTokenSource(grace);
            try
            {
                await process.WaitForExitAsync(wait.Token);
            }
            catch (OperationCanceledException)
            {
                process.Kill(entireProcessTree: true);
                await process.WaitForExitAsync(CancellationToken.None);
            }
        }
        catch (InvalidOperationException)
        {
            // Not started or already reaped: nothing to stop.
        }
    }

    // Stops a process another perflab started (by pid); false when no such process exists.
    public static async Task<bool> StopByPidAsync(int pid, TimeSpan grace)
    {
        Process process;
        try
        {
            process = Process.GetProcessById(pid);
        }
        catch (ArgumentException)
        {
            return false;
        }
        using (process)
        {
            await StopAsync(process, grace);
            return true;
        }
    }

    // SIGINT, as Ctrl+C sends it: the process stops as it would at the terminal. Nothing when it has exited already.
    public static void Interrupt(Process process)
    {
        try
        {
            if (!process.HasExited)
            {
                _ = Kill(process.Id, SigInt);
            }
        }
        catch (InvalidOperationException)
        {
            // Not started or already reaped: nothing to interrupt.
        }
    }

    // Whether the pid names a live process: an exited one nobody has reaped yet (a zombie) does not count.
    public static bool IsAlive(int pid)
    {
        try
        {
            var state = ProcStat.Read($"/proc/{pid.ToString(CultureInfo.InvariantCulture)}/stat").State;
            return state is not ('Z' or 'X');
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException)
        {
            return false;
        }
    }

    /// <summary>Sends <paramref name="signal"/> to <paramref name="pid"/>; false when it cannot be (gone, or not ours to signal).</summary>
    public static bool Signal(int pid, int signal) => pid > 0 && Kill(pid, signal) == 0;

#pragma warning disable SYSLIB1054 // DllImport keeps the project free of unsafe code; kill(2) marshals trivially.
    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int Kill(int pid, int signal);
#pragma warning restore SYSLIB1054
}
