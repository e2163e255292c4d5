namespace PerfLab.Tests;

/// <summary>
/// A class (or collection) that keeps both cores busy for a minute or more: full-speed load on real SUTs, several
/// processes a run, hosts in namespaces. At most <see cref="AtOnce"/> of them run at a time, whatever the test threads
/// (xunit.runner.json gives three): the others, which mostly wait on fixed windows and delays, take the third thread.
/// Three heavy classes at once starved each other on CI (docs/benchmarks/tests.md).
/// </summary>
/// <remarks>xunit creates it before the class's first test and disposes of it after its last.</remarks>
public sealed class CpuHeavy : IAsyncLifetime
{
    public const int AtOnce = 2;

    private static readonly SemaphoreSlim Slots = new(AtOnce, AtOnce);

    public Task InitializeAsync() => Slots.WaitAsync();

    public Task DisposeAsync()
    {
        Slots.Release();
        return Task.CompletedTask;
    }
}
