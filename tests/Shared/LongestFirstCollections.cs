using Xunit.Abstractions;
using Xunit.Sdk;

namespace PerfLab.Testing;

/// <summary>
/// Starts the long parallel collections first. xunit runs the parallel collections two at a time on the 2-core CI
/// machine, in the order this returns, then the non-parallel ones alone: left to the default order, a 90 s collection
/// started last ran with the other thread idle. Longest first, the two threads finish close together. The names are the
/// collections measured longest (CI's TRX, seconds); every other collection follows in xunit's default order.
/// Only the order changes: each collection still runs its tests one after another, beside the same number of others.
/// </summary>
public sealed class LongestFirstCollections : ITestCollectionOrderer
{
    private static readonly string[] Longest =
    [
        // PerfLab.Tests
        "PerfLab.Tests.Experiments.RunCommandTests", // 380 s
        "TinyShop", // 304 s: CompareCommandTests, CiOutputRunTests, AppRunTests, OwnAppHostsTests
        "PerfLab.Tests.Experiments.InvocationsRunTests", // 161 s
        "PerfLab.Tests.Experiments.ShippedSmokeTests", // 138 s (a busy machine, load average 40 on 2 cores)
        "PerfLab.Tests.Hosts.HostsRunTests", // 106 s
        "PerfLab.Tests.Packaging.ToolPackageTests", // 90 s
        "PerfLab.Tests.Counters.CounterCollectorTests", // 90 s
        "PerfLab.Tests.Experiments.SweepRunTests", // 75 s
        "PerfLab.Tests.Hosts.RemoteLoadTests", // 72 s (in the quiet collection until 2026-11-29)
        "PerfLab.Tests.Experiments.CapacityRunTests", // 71 s
        "PerfLab.Tests.Experiments.Capacity.CapacitySearchTests", // 62 s
        "PerfLab.Tests.Database.SeederTests", // 48 s
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
