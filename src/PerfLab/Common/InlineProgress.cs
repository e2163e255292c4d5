namespace PerfLab.Common;

/// <summary>
/// A progress sink that reports on the caller's thread. <see cref="Progress{T}"/> posts each report to the thread
/// pool, so progress lines (seeding, the SUT's build, the load's live display) could print late, out of order, or
/// after the result.
/// </summary>
internal sealed class InlineProgress<T>(Action<T> report) : Progress<T>
{
    protected override void OnReport(T value) => report(value);
}
