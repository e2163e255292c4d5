using System.Diagnostics;

namespace PerfLab.Load;

/// <summary>
/// The send time of each worker's request while it is on the wire, so the requests still in flight when a window
/// closes can be reported (count and age of the oldest) instead of vanishing: wrk counts only what completed inside its
/// window too, and says nothing of the rest; a figure made by a window shorter than the latency needs both.
/// </summary>
internal sealed class InFlightRequests(int workers)
{
    private readonly long[] _sentAt = new long[workers];
    private long _capturedCount;
    private long _capturedOldestTicks;

    public void Begin(int worker, long timestamp) => Volatile.Write(ref _sentAt[worker], timestamp);

    public void End(int worker) => Volatile.Write(ref _sentAt[worker], 0);

    /// <summary>Takes the picture at the moment the window closes (before the in-flight requests are aborted).</summary>
    public void Capture()
    {
        var now = Stopwatch.GetTimestamp();
        long count = 0, oldest = 0;
        for (var i = 0; i < _sentAt.Length; i++)
        {
            var sent = Volatile.Read(ref _sentAt[i]);
            if (sent != 0)
            {
                count++;
                oldest = Math.Max(oldest, now - sent);
            }
        }
        Volatile.Write(ref _capturedOldestTicks, oldest);
        Volatile.Write(ref _capturedCount, count);
    }

    public long CountAtClose => Volatile.Read(ref _capturedCount);

    public double OldestMsAtClose => Volatile.Read(ref _capturedOldestTicks) * 1000.0 / Stopwatch.Frequency;
}
