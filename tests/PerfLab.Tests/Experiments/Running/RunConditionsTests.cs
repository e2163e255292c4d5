using PerfLab.Common;
using PerfLab.Experiments.Running;
using PerfLab.Results;
using PerfLab.SutProcesses;

namespace PerfLab.Tests.Experiments.Running;

public sealed class RunConditionsTests
{
    private static readonly CoreLayout Unpinned = new(null, null, null, "not pinned");

    [Theory]
    [InlineData("0", new[] { 0 })]
    [InlineData("0-3,6", new[] { 0, 1, 2, 3, 6 })]
    [InlineData(" 2,0-1 ", new[] { 0, 1, 2 })]
    public void Parse_CpuLists_AsTasksetWritesThem(string list, int[] cpus)
    {
        Assert.Equal(cpus, CpuList.Parse(list));
    }

    [Fact]
    public void CpuSet_NoCoresCondition_KeepsTheLayoutsChoice()
    {
        Assert.Null(RunConditions.CpuSet(Conditions.None, Unpinned));
        Assert.Equal("0", RunConditions.CpuSet(new Conditions { DatabaseRttMs = 1 }, Unpinned with { Sut = "0" }));
    }

    [Fact]
    public void CpuSet_CoresOfAPinnedSet_TakesTheFirstOnes()
    {
        Assert.Equal("2,3", RunConditions.CpuSet(new Conditions { Cores = 2 }, Unpinned with { Sut = "2-5" }));
        Assert.Equal(CpuList.Format(CpuList.Allowed().Take(1)), RunConditions.CpuSet(new Conditions { Cores = 1 }, Unpinned));
    }

    [Fact]
    public void CpuSet_MoreCoresThanTheSetHas_FailsNamingBoth()
    {
        var ex = Assert.Throws<PerfLabException>(() => RunConditions.CpuSet(new Conditions { Cores = 3 }, Unpinned with { Sut = "0-1" }));

        Assert.Equal(ExitCode.Environment, ex.ExitCode);
        Assert.Equal("the SUT was to get 3 cores, but only 2 (0,1) are available to it here; lower cores or the sweep's values.", ex.Message);
    }

    [Fact]
    public void CoresNotInEffect_ProcessorCountDiffers_IsAVariantNotInEffectFailure()
    {
        var info = new Dictionary<string, string> { ["processorCount"] = "2" };

        Assert.Null(RunConditions.CoresNotInEffect(new Conditions { Cores = 2 }, info, null));
        Assert.Null(RunConditions.CoresNotInEffect(Conditions.None, info, null));
        var failure = RunConditions.CoresNotInEffect(new Conditions { Cores = 1 }, info, null);
        Assert.Equal(FailureKind.VariantNotInEffect, failure!.Kind);
        Assert.Equal("the variant did not take effect: cores: asked for 1, /info reports processorCount 2", failure.Reason);
    }

    /// <summary>One core through taskset: the SUT sees one processor, and the runtime gives it workstation GC whatever it asks.</summary>
    [Fact]
    public async Task Sut_GivenOneCore_SeesOneProcessorAndRunsWorkstationGcEvenWhenServerIsAsked()
    {
        var launch = SutLaunch.Default(connectionString: null) with
        {
            Environment = new Dictionary<string, string> { ["DOTNET_gcServer"] = "1" },
            CpuSet = RunConditions.CpuSet(new Conditions { Cores = 1 }, Unpinned),
            LogFile = Path.Combine(TestCaches.NewFolder(), "sut.log"),
        };
        await using var sut = await SutProcess.StartAsync(launch);

        var info = await sut.GetInfoAsync();

        Assert.Equal(1, info.ProcessorCount);
        Assert.False(info.Gc.IsServerGC);
        Assert.Contains("GC mode (DOTNET_gcServer): asked for server, /info reports workstation", VariantCheck.Mismatches(launch, info));
    }
}
