using PerfLab.Counters;

namespace PerfLab.Tests.Counters;

public sealed class MeterIntervalsTests
{
    // The target's metrics timer ticks at .970 past each second.
    private static readonly DateTime Tick = DateTimeOffset.FromUnixTimeMilliseconds(1_002_970).UtcDateTime;

    [Fact]
    public void FiledAt_ValueWrittenPastTheSecondsEdge_FiledAtItsIntervalsTick()
    {
        var intervals = new MeterIntervals();
        intervals.OnCollection(Tick, start: true);

        // Written 40 ms after its tick, in the next second: still the sample of second 1002.
        Assert.Equal(1_002_970, intervals.FiledAt(1_003_010));
        Assert.Equal(1_002_970, intervals.FiledAt(1_002_975));
    }

    [Fact]
    public void FiledAt_NoCollectionStartOrAfterItsStop_WhenWritten()
    {
        var intervals = new MeterIntervals();
        Assert.Equal(1_003_010, intervals.FiledAt(1_003_010));

        intervals.OnCollection(Tick, start: true);
        intervals.OnCollection(null, start: false);
        Assert.Equal(1_003_500, intervals.FiledAt(1_003_500));

        intervals.OnCollection("not a time", start: true);
        Assert.Equal(1_003_600, intervals.FiledAt(1_003_600));
    }

    [Fact]
    public void UnixMs_TheSameInstantInAnyKind_TheSameMilliseconds()
    {
        Assert.Equal(1_002_970, MeterIntervals.UnixMs(Tick));
        Assert.Equal(1_002_970, MeterIntervals.UnixMs(Tick.ToLocalTime()));
        Assert.Equal(1_002_970, MeterIntervals.UnixMs(DateTime.SpecifyKind(Tick, DateTimeKind.Unspecified)));
        Assert.Null(MeterIntervals.UnixMs(null));
    }
}
