using System.Globalization;

namespace PerfLab.Common;

/// <summary>
/// Stops and continues a process of this machine with SIGSTOP and SIGCONT: a stopped process is not scheduled at all
/// (no thread runs: no background compilation, no timers, no garbage collection), and continues where it was.
/// </summary>
public static class ProcessPause
{
    private const int SigCont = 18;
    private const int SigStop = 19;

    /// <summary>Stops <paramref name="pid"/>; false when it cannot be (gone, another host's, or not ours to signal).</summary>
    public static bool Stop(int pid) => ProcessTree.Signal(pid, SigStop);

    /// <summary>Continues <paramref name="pid"/> (harmless when it was not stopped); false when it is gone.</summary>
    public static bool Continue(int pid) => ProcessTree.Signal(pid, SigCont);

    /// <summary>Whether the kernel shows <paramref name="pid"/> stopped by a signal (state T in /proc/&lt;pid&gt;/stat).</summary>
    public static bool IsStopped(int pid)
    {
        try
        {
            return ProcStat.Read(string.Create(CultureInfo.InvariantCulture, $"/proc/{pid}/stat")).State == 'T';
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException or ArgumentOutOfRangeException)
        {
            return false;
        }
    }
}
