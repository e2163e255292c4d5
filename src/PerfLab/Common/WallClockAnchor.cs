using System.Diagnostics;

namespace PerfLab.Common;

/// <summary>
/// The wall clock tied to the monotonic one at one instant (the clock probe reads one at each end of an exchange, so
/// their two Unix times can be checked against the monotonic time between them). The wall clock's read is bracketed by two
/// monotonic reads and tied to their midpoint: a thread preempted between the reads would otherwise shift every later
/// time by the preemption (seen on a busy CI machine: a host's clock offset 4.2 ms off, said to be within 0.1 ms).
/// The tightest of a few brackets is kept, and half its width is the anchor's uncertainty.
/// </summary>
public readonly record struct WallClockAnchor(double UnixMs, long Timestamp, double UncertaintyMs)
{
    internal const int Tries = 8;

    public static WallClockAnchor Take() => Take(() =>
    {
        var before = Stopwatch.GetTimestamp();
        var utc = DateTimeOffset.UtcNow;
        return (before, utc, Stopwatch.GetTimestamp());
    });

    /// <summary>The anchor from the tightest of <see cref="Tries"/> brackets that <paramref name="bracket"/> reads.</summary>
    internal static WallClockAnchor Take(Func<(long Before, DateTimeOffset Utc, long After)> bracket)
    {
        var best = new WallClockAnchor(0, 0, double.MaxValue);
        for (var i = 0; i < Tries; i++)
        {
            var (before, utc, after) = bracket();
            var halfMs = Stopwatch.GetElapsedTime(before, after).TotalMilliseconds / 2;
            if (halfMs < best.UncertaintyMs)
            {
                best = new WallClockAnchor((utc - DateTimeOffset.UnixEpoch).TotalMilliseconds, before + ((after - before) / 2), halfMs);
            }
        }
        return best;
    }
}
