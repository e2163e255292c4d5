namespace PerfLab.Database;

/// <summary>
/// A progress sink that reports on the caller's thread. <see cref="Progress{T}"/> posts each report to the thread
/// pool, so seeding lines could print late, out of order, or after the result.
/// </summary>
internal sealed class InlineProgress<T>(Action<T> report) : Progress<T>
{
    protected override void OnReport(T value) => report(value);
}
