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
}
