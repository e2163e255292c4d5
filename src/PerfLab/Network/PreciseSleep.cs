using System.Diagnostics;
using System.Runtime.InteropServices;

namespace PerfLab.Network;

// Sleeps a thread until a Stopwatch timestamp. Task.Delay and Thread.Sleep wake on whole milliseconds or later (a
// timer tick plus a pool hop), which alone is a tenth of a 10 ms RTT; nanosleep wakes at the requested nanosecond
// plus the scheduler's wake-up latency. LatencyProxyTests hold the resulting round trips to the configured RTT.
// Elsewhere than Linux the millisecond sleep is the fallback.
internal static partial class PreciseSleep
{
    // Cancellation is checked at least this often, so a stopped proxy's threads end promptly.
    private const long SliceNs = 20_000_000;

    // PR_SET_TIMERSLACK: the kernel may wake a sleeping thread up to this many nanoseconds late to batch wake-ups; the
    // default 50 µs, paid once in each direction, would be up to a tenth of a millisecond on every round trip.
    private const int PrSetTimerSlack = 29;

    [ThreadStatic]
    private static bool _slackSet;

    public static void Until(long dueTimestamp, CancellationToken ct)
    {
        if (!_slackSet && OperatingSystem.IsLinux())
        {
            _slackSet = true;
            _ = prctl(PrSetTimerSlack, 1, 0, 0, 0); // per thread; on failure the default slack stays
        }
        while (true)
        {
            ct.ThrowIfCancellationRequested();
            var remaining = dueTimestamp - Stopwatch.GetTimestamp();
            if (remaining <= 0)
            {
                return;
            }
            var ns = Math.Min((long)(remaining * (1e9 / Stopwatch.Frequency)), SliceNs);
            if (OperatingSystem.IsLinux() && Environment.Is64BitProcess)
            {
                var request = new Timespec { Seconds = ns / 1_000_000_000, Nanoseconds = ns % 1_000_000_000 };
                _ = nanosleep(ref request, IntPtr.Zero); // EINTR just loops again
            }
            else
            {
                Thread.Sleep(TimeSpan.FromMilliseconds(Math.Ceiling(ns / 1e6)));
            }
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [DllImport("libc", SetLastError = true)]
    private static extern int nanosleep(ref Timespec request, IntPtr remaining);

    [DllImport("libc", SetLastError = true)]
    private static extern int prctl(int option, ulong arg2, ulong arg3, ulong arg4, ulong arg5);
}
