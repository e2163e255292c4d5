namespace PerfLab.Experiments.Running;

/// <summary>
/// `perflab run --budget`: the time the selected experiments may take, shared among them in proportion to their
/// planned time per block. Each experiment's share is taken from what is left when it starts, so time one did not
/// use is carried forward to the next.
/// </summary>
public sealed class TimeBudget(TimeSpan total, IReadOnlyList<double> plannedBlockSeconds)
{
    private TimeSpan _spent;

    public TimeSpan Left => total - _spent > TimeSpan.Zero ? total - _spent : TimeSpan.Zero;

    /// <summary>The share of the experiment at <paramref name="index"/> (in run order) of what is left now.</summary>
    public TimeSpan AllowanceFor(int index)
    {
        var rest = plannedBlockSeconds.Skip(index).Sum();
        return rest > 0 ? Left * (plannedBlockSeconds[index] / rest) : Left;
    }

    public void Spend(TimeSpan spent) => _spent += spent;

    /// <summary>Whether one more block, as long as the average block so far, still fits in <paramref name="allowance"/>.</summary>
    public static bool HasRoomForBlock(TimeSpan allowance, TimeSpan elapsed, int blocks) =>
        blocks > 0 && elapsed + elapsed / blocks <= allowance;
}
