using Xunit.Abstractions;
using Xunit.Sdk;

namespace PerfLab.Testing;

/// <summary>
/// Starts the long parallel collections first. xunit runs the parallel collections three at a time in PerfLab.Tests
/// (one at a time in PerfLab.Sut.Tests) on the 2-core CI machine, in the order this returns, then the non-parallel ones
/// alone: left to the default order, a 90 s collection started last ran with the other thread idle. Longest first, the
/// threads finish close together. The names are the collections measured longest (TRX, seconds); every other
/// collection follows in xunit's default order.
/// Only the order changes: each collection still runs its tests one after another, beside the same number of others.
/// </summary>
public sealed class LongestFirstCollections : ITestCollectionOrderer
{
    private static readonly string[] Longest =
    [
        // PerfLab.Tests (2026-11-30, three threads, on CI): its CPU-heavy chains (CpuHeavy.cs) first, then the longest
        // of the others
        "CPU-heavy A (TinyShop, hosts)", // 975 s
        "CPU-heavy B (perflab run)", // 978 s
        "PerfLab.Tests.Counters.CounterCollectorTests", // 89 s
        "PerfLab.Tests.Load.WindowTests", // 48 s
        "PerfLab.Tests.Load.LoadEngineTests", // 37 s
        "PerfLab.Tests.Experiments.Running.TieringWatchTests", // 35 s
        "PerfLab.Tests.Database.SeederTests", // 32 s
        // PerfLab.Sut.Tests
        "PerfLab.Sut.Tests.EndpointTests", // 88 s
        "PerfLab.Sut.Tests.FrameworkBuildTests", // 83 s
        "PerfLab.Sut.Tests.DataLayerTests", // 33 s
    ];

    private readonly DefaultTestCollectionOrderer _default = new();

    public IEnumerable<ITestCollection> OrderTestCollections(IEnumerable<ITestCollection> testCollections)
    {
        var ordered = _default.OrderTestCollections(testCollections).ToList();
        return ordered.OrderBy(Rank).ToList(); // a stable sort: the unlisted keep the default order
    }

    // A class's own collection is named "Test collection for <class>"; a shared one by its definition's name.
    private static int Rank(ITestCollection collection)
    {
        var name = collection.DisplayName;
        const string ClassCollection = "Test collection for ";
        if (name.StartsWith(ClassCollection, StringComparison.Ordinal))
        {
            name = name[ClassCollection.Length..];
        }
        var rank = Array.IndexOf(Longest, name);
        return rank < 0 ? Longest.Length : rank;
    }
}
