using Xunit.Abstractions;
using Xunit.Sdk;

namespace PerfLab.Testing;

/// <summary>
/// Starts the long parallel collections first. xunit runs the parallel collections two at a time in PerfLab.Tests on
/// the 2-core CI machine, in the order this returns, then the non-parallel ones alone: left to the default order, a 90 s
/// collection started last ran with the other thread idle. Longest first, the threads finish close together. The names
/// are the collections measured longest (TRX, seconds, at two threads); every other collection follows in xunit's
/// default order.
/// Only the order changes: each collection still runs its tests one after another, beside the same number of others.
/// </summary>
public sealed class LongestFirstCollections : ITestCollectionOrderer
{
    private static readonly string[] Longest =
    [
        // PerfLab.Tests (2026-11-30, two threads, quiet)
        "TinyShop", // 428 s: OwnAppHostsTests, CiOutputRunTests, CompareCommandTests, AppRunTests
        "PerfLab.Tests.Experiments.RunCommandTests", // 346 s
        "PerfLab.Tests.Hosts.HostsRunTests", // 209 s
        "PerfLab.Tests.Experiments.ShippedSmokeTests", // 158 s
        "PerfLab.Tests.Hosts.RemoteLoadTests", // 128 s
        "PerfLab.Tests.Experiments.InvocationsRunTests", // 108 s
        "PerfLab.Tests.Experiments.CapacityRunTests", // 98 s
        "PerfLab.Tests.Experiments.Capacity.CapacitySearchTests", // 90 s
        "PerfLab.Tests.Counters.CounterCollectorTests", // 88 s
        "PerfLab.Tests.Hosts.LinkLossTests", // 68 s
        "PerfLab.Tests.Hosts.SharedCacheDeployTests", // 66 s
        "PerfLab.Tests.Packaging.ToolPackageTests", // 55 s
        "PerfLab.Tests.Experiments.SweepRunTests", // 42 s
        "PerfLab.Tests.Database.SeederTests", // 25 s
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
