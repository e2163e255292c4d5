using System.Diagnostics;
using PerfLab.Common;

namespace PerfLab.Tests.Common;

public sealed class WallClockAnchorTests
{
    [Fact]
    public void UnixMsAt_Later_TheWallClockReadBetweenTwoMonotonicReadsWithinTheAnchorsUncertainty()
    {
        var anchor = WallClockAnchor.Take();
        Thread.Sleep(50);

        // The wall clock read now lies between the anchor's times of the two monotonic reads around it.
        var before = Stopwatch.GetTimestamp();
        var now = (DateTimeOffset.UtcNow - DateTimeOffset.UnixEpoch).TotalMilliseconds;
        var after = Stopwatch.GetTimestamp();

        var slack = anchor.UncertaintyMs + 1; // DateTimeOffset.UtcNow itself is read to the microsecond; 1 ms for a clock slew
        Assert.InRange(now, anchor.UnixMsAt(before) - slack, anchor.UnixMsAt(after) + slack);
        Assert.InRange(anchor.UncertaintyMs, 0, 5);
    }

    [Fact]
    public void UnixMsAt_KnownAnchor_AddsTheMonotonicTimeSinceIt()
    {
        var anchor = new WallClockAnchor(1_000_000, 0, 0.01);

        Assert.Equal(1_000_000 + 250.0, anchor.UnixMsAt(Stopwatch.Frequency / 4), 6);
        Assert.Equal(1_000_000 - 1000.0, anchor.UnixMsAt(-Stopwatch.Frequency), 6);
    }

    [Fact]
    public void Take_OneBracketPreempted_KeepsTheTightestAndTiesTheWallClockToItsMidpoint()
    {
        // Eight brackets: 4 ms wide (a preemption between the reads), then 0.2 ms, then 1 ms wide, and so on.
        var ms = Stopwatch.Frequency / 1000;
        var widths = new[] { 4 * ms, ms / 5, ms, 2 * ms, ms, 3 * ms, ms, ms };
        var start = new DateTimeOffset(2026, 11, 27, 12, 0, 0, TimeSpan.Zero);
        var i = 0;
        var anchor = WallClockAnchor.Take(() =>
        {
            var before = 10 * ms * (i + 1);
            var utc = start.AddMilliseconds(i);
            return (before, utc, before + widths[i++]);
        });

        Assert.Equal(WallClockAnchor.Tries, i);
        Assert.Equal(0.1, anchor.UncertaintyMs, 6);
        Assert.Equal(20 * ms + (ms / 10), anchor.Timestamp); // the second bracket's midpoint
        Assert.Equal((start.AddMilliseconds(1) - DateTimeOffset.UnixEpoch).TotalMilliseconds, anchor.UnixMs, 6);
    }
}
