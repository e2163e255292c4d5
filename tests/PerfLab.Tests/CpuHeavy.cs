using PerfLab.Tests.Apps;

namespace PerfLab.Tests;

/// <summary>
/// The classes that keep both cores busy for a minute or more (full-speed load on real SUTs, several processes a run,
/// hosts in namespaces), in two chains: each chain is one collection, its classes one after another, so two of them
/// run at a time on the three test threads (xunit.runner.json) and the third runs the lighter classes, which mostly
/// wait on fixed windows and delays, from the start. Three heavy classes at once starved each other on CI, and a heavy
/// class waiting for its turn would hold a thread. The chains are balanced by their classes' times on CI
/// (docs/benchmarks/tests.md): about 980 s each on 2026-11-30.
/// </summary>
public static class CpuHeavy
{
    /// <summary>TinyShop's runs (one build in one cache for the chain) and the hosts in network namespaces.</summary>
    public const string A = "CPU-heavy A (TinyShop, hosts)";

    /// <summary>`perflab run` on the built-in SUT: end to end, the shipped smoke profiles, capacity, the tool package.</summary>
    public const string B = "CPU-heavy B (perflab run)";
}

[CollectionDefinition(CpuHeavy.A)]
public sealed class CpuHeavyA : ICollectionFixture<TinyShopBuild>;

[CollectionDefinition(CpuHeavy.B)]
public sealed class CpuHeavyB;
