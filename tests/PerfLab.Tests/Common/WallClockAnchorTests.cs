using System.Diagnostics;
using PerfLab.Common;

namespace PerfLab.Tests.Common;

public sealed class WallClockAnchorTests
{
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
