using PerfLab.Tests.Apps;

namespace PerfLab.Tests;

/// <summary>
/// The classes that keep both cores busy for a minute or more (full-speed load on real SUTs, several processes a run,
/// hosts in namespaces), in two chains: each chain is one collection, its classes one after another, so two of them
/// run at a time on the three test threads (xunit.runner.json) and the third runs the lighter classes, which mostly
/// wait on fixed windows and delays, from the start. Three heavy classes at once starved each other on CI, and a heavy
/// class waiting for its turn would hold a thread. The chains are balanced by their classes' times on CI
/// (docs/benchmarks/tests.md): A ended at 986 s and B at 1,012 s on CI of 2026-12-01 18:24, where with the remote-load
/// tests in A and the capacity search in B they had ended at 1,055 s and 984 s.
/// </summary>
public static class CpuHeavy
{
    /// <summary>TinyShop's runs (one build in one cache for the chain), the hosts in network namespaces, the capacity search.</summary>
    public const string A = "CPU-heavy A (TinyShop, hosts)";

    /// <summary>
    /// `perflab run` on the built-in SUT: end to end, the shipped smoke profiles, capacity runs, the tool package; and the
    /// load from generators on hosts.
    /// </summary>
    public const string B = "CPU-heavy B (perflab run)";
}

[CollectionDefinition(CpuHeavy.A)]
public sealed class CpuHeavyA : ICollectionFixture<TinyShopBuild>;

[CollectionDefinition(CpuHeavy.B)]
public sealed class CpuHeavyB;
