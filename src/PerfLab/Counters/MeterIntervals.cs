using Microsoft.Diagnostics.Tracing;

namespace PerfLab.Counters;

/// <summary>
/// The interval a System.Diagnostics.Metrics value belongs to. The target's metrics timer ticks once an interval from
/// the session's start; at each tick its collection thread writes CollectionStart with the interval's nominal edges,
/// then one event per value. A value is filed at the tick its interval ended on, not when it was written: on a
/// starved machine the thread runs late, and the values of a tick at .97 s written 40 ms later would land in the next
/// second beside that second's own, two intervals in one sample and none in the sample before. Fed by the one
/// EventPipe reader thread, in the order the target wrote the events (one thread writes them all); read at the end.
/// </summary>
internal sealed class MeterIntervals
{
    private readonly Lock _gate = new();
    private long? _endUnixMs;
    private long? _firstTickUnixMs;

    /// <summary>
    /// The first tick seen. The timer ticks whole intervals apart from its start, when the target enabled the session,
    /// which on a busy machine is hundreds of milliseconds after the collector asked for it.
    /// </summary>
    public long? FirstTickUnixMs
    {
        get
        {
            lock (_gate)
            {
                return _firstTickUnixMs;
            }
        }
    }

    /// <summary>Takes the session's CollectionStart and CollectionStop (any session's: true); false for other events.</summary>
    public bool Take(TraceEvent e, string sessionId)
    {
        // EventSource makes CollectionStart/Stop a task's start and stop: TraceEvent names them "Collection/Start".
        var start = e.EventName is "Collection/Start" or "CollectionStart";
        if (!start && e.EventName is not ("Collection/Stop" or "CollectionStop"))
        {
            return false;
        }
        if ((e.PayloadByName("sessionId") as string) == sessionId)
        {
            OnCollection(start ? e.PayloadByName("intervalEndTime") : null, start);
        }
        return true;
    }

    /// <summary>A collection began (<paramref name="intervalEnd"/>: its CollectionStart's intervalEndTime) or ended.</summary>
    public void OnCollection(object? intervalEnd, bool start)
    {
        lock (_gate)
        {
            _endUnixMs = start ? UnixMs(intervalEnd) : null;
            _firstTickUnixMs ??= _endUnixMs;
        }
    }

    /// <summary>
    /// Where a value written at <paramref name="writtenUnixMs"/> is filed: its collection's tick, or when it was
    /// written if no CollectionStart said (a runtime that writes none, a session joined mid-collection).
    /// </summary>
    public long FiledAt(long writtenUnixMs)
    {
        lock (_gate)
        {
            return _endUnixMs ?? writtenUnixMs;
        }
    }

    // TraceEvent reads an EventSource DateTime (a UTC FILETIME) as local time; one without a kind is taken as UTC.
    internal static long? UnixMs(object? payload) => payload switch
    {
        DateTime { Kind: DateTimeKind.Unspecified } d => new DateTimeOffset(d, TimeSpan.Zero).ToUnixTimeMilliseconds(),
        DateTime d => new DateTimeOffset(d).ToUnixTimeMilliseconds(),
        _ => null,
    };
}
