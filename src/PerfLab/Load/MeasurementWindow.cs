using System.Diagnostics;

namespace PerfLab.Load;

/// <summary>
/// A scenario's bookkeeping while it runs: when its measured window began and ended, the recorders' state at its
/// start, the request budget (-n) measured requests draw from, and how many users are active.
/// </summary>
internal sealed class MeasurementWindow(RecorderSet recorders, long? maxRequests)
{
    private long _budget = maxRequests ?? long.MaxValue;
    private int _activeUsers;
    private volatile bool _measuring;

    public RecordingSnapshot Baseline { get; private set; } = recorders.Snapshot();
    public long MeasureStart { get; private set; } = Stopwatch.GetTimestamp();
    public long MeasureEnd { get; set; }
    public bool Measuring => _measuring;
    public int ActiveUsers => Volatile.Read(ref _activeUsers);
    public bool BudgetExhausted => Volatile.Read(ref _budget) <= 0;

    public void Begin()
    {
        Baseline = recorders.Snapshot();
        MeasureStart = Stopwatch.GetTimestamp();
        _measuring = true;
    }

    public void UserStarted() => Interlocked.Increment(ref _activeUsers);

    public void UserStopped() => Interlocked.Decrement(ref _activeUsers);

    /// <summary>Warm-up requests are free; measured ones draw from the request budget (-n).</summary>
    public bool TryTakeBudget() => !_measuring || maxRequests is null || Interlocked.Decrement(ref _budget) >= 0;
}
