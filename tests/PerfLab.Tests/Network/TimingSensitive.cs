
namespace PerfLab.Tests.Network;

// Tests whose assertions are timings run in this collection: xunit runs it alone, after every parallel collection.
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TimingSensitive
{
    public const string Name = "Timing-sensitive (runs alone)";
}
