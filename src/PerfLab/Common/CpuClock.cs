using System.Globalization;
using System.Runtime.InteropServices;

namespace PerfLab.Common;

/// <summary>
/// The CPU time the kernel has charged a whole process (every thread, user + system), in nanoseconds. It reads the
/// process's own CPU clock (clock_getcpuclockid, readable for any pid on Linux): the scheduler's runtime of the
/// thread group, which, unlike a sum over /proc/&lt;pid&gt;/task/*, still holds the time of threads that have exited
/// (a thread-pool thread retired in mid-window keeps its share) and, unlike /proc/&lt;pid&gt;/stat's utime + stime,
/// is not rounded to 10 ms ticks. Where the clock cannot be read, /proc/&lt;pid&gt;/stat's ticks stand in.
/// </summary>
public static class CpuClock
{
    private const int ClockThreadCpuTime = 3;

    /// <summary>The process's CPU time so far in nanoseconds; null when the process is gone.</summary>
    public static long? ProcessNanoseconds(int pid)
    {
        if (pid <= 0)
        {
            // The kernel reads pid 0 (and the clock ids of negative ones) as the calling process: never another's.
            return null;
        }
        // The kernel's process CPU clock id: ~pid << 3, with CPUCLOCK_SCHED (2) and no per-thread bit.
        var clock = (~pid << 3) | 2;
        if (clock_gettime(clock, out var ts) == 0)
        {
            return ts.Seconds * 1_000_000_000 + ts.Nanoseconds;
        }
        try
        {
            var ticks = ProcStat.Read(string.Create(CultureInfo.InvariantCulture, $"/proc/{pid}/stat")).CpuTicks;
            return (long)(ticks * (1e9 / ProcStat.TicksPerSecond));
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or FormatException)
        {
            return null;
        }
    }

    /// <summary>
    /// A thread of this process's CPU time so far in nanoseconds, by its kernel thread id (<see cref="CurrentThreadId"/>),
    /// from its CPU clock: no /proc file read; null when it cannot be read (the thread has ended).
    /// </summary>
    public static long? ThreadNanoseconds(int tid)
    {
        // The kernel's thread CPU clock id: ~tid << 3, with CPUCLOCK_SCHED (2) and the per-thread bit (4).
        return tid > 0 && clock_gettime((~tid << 3) | 6, out var ts) == 0 ? ts.Seconds * 1_000_000_000 + ts.Nanoseconds : null;
    }

    /// <summary>The calling thread's kernel thread id (gettid), for <see cref="ThreadNanoseconds"/>.</summary>
    public static int CurrentThreadId() => gettid();

    /// <summary>The calling thread's CPU time in nanoseconds: what it ran, not how long it waited for a core.</summary>
    public static long CurrentThreadNanoseconds() =>
        clock_gettime(ClockThreadCpuTime, out var ts) == 0
            ? ts.Seconds * 1_000_000_000 + ts.Nanoseconds
            : throw new InvalidOperationException("the thread's CPU clock cannot be read");

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

#pragma warning disable SYSLIB1054 // DllImport keeps the project free of unsafe code; this marshals trivially.
    [DllImport("libc", SetLastError = true)]
    private static extern int clock_gettime(int clockId, out Timespec time);

    [DllImport("libc")]
    private static extern int gettid();
#pragma warning restore SYSLIB1054
}
