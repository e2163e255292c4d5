namespace PerfLab.Tests;

/// <summary>
/// Tests that assert a time the SUT measured of itself (a command's 20 ms): run alone, after the parallel classes,
/// so that other tests' SUTs and load do not queue them for a core on a small machine.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class QuietCollection
{
    public const string Name = "Quiet";
}
