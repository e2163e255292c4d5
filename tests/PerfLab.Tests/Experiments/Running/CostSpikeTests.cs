using PerfLab.Experiments.Analysis;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>
/// A slot whose full-speed cost per request is over 1.5 times its run's median slot is a spike: left out of CPU per
/// request at full speed and of its slot pairs, kept in the kernel's plain figure, and named in the notes.
/// </summary>
public sealed class CostSpikeTests
{
    // 2 s slots on cores 1.2 times slower than full speed: 1.8 s of CPU over 1,000 requests is 1.5 ms at full speed.
    private static CpuWindow Slot(long requests = 1000, double app = 1.0, double db = 0.8) => new(2, requests, app, db, Slowdown: 1.2);

    [Fact]
    public void FullSpeed_OneSlotTwiceItsRunsOthers_LeftOutThere_KeptInTheKernelsFigure()
    {
        // The spike: half the requests, the same CPU (3.0 ms at full speed, twice the median's 1.5 ms).
        var cost = new CpuCost([Slot(), Slot(500, 0.6, 1.2), Slot()]);

        Assert.Equal(1.5, cost.FullSpeedMsPerRequest!.Value, 9);
        Assert.Equal(1, cost.SpikedWindows);
        Assert.True(cost.IsSpike(cost.Windows[1]));
        Assert.False(cost.IsSpike(cost.Windows[0]));
        // The kernel's figure over every slot: 5.4 s of CPU over 2,500 requests.
        Assert.Equal(2.16, cost.MsPerRequest!.Value, 9);
    }

    [Fact]
    public void FullSpeed_OneSlotAThirdDearer_NoSpikeAndEverySlotCounts()
    {
        // 1.4 times the median (2.1 ms at full speed) stays: 6.12 s of CPU over 3,000 requests, at full speed.
        var cost = new CpuCost([Slot(), Slot(1000, 1.4, 1.12), Slot()]);

        Assert.Equal(0, cost.SpikedWindows);
        Assert.Equal((1.8 + 2.52 + 1.8) / 3000 * 1000 / 1.2, cost.FullSpeedMsPerRequest!.Value, 9);
    }

    [Fact]
    public void FullSpeed_TwoSlotsOrUnsampledCores_NothingLeftOut()
    {
        var two = new CpuCost([Slot(), Slot(500, 0.6, 1.2)]);
        var unsampled = new CpuCost([new CpuWindow(2, 1000, 1, 0.8), new CpuWindow(2, 500, 0.6, 1.2), new CpuWindow(2, 1000, 1, 0.8)]);

        Assert.Equal(0, two.SpikedWindows);
        Assert.Equal(3.6 / 1500 * 1000 / 1.2, two.FullSpeedMsPerRequest!.Value, 9);
        // Without the cores' speed there is no full-speed figure to leave a slot out of.
        Assert.Equal(0, unsampled.SpikedWindows);
    }

    [Fact]
    public void Compare_AaWithASpikeInOneBlock_FullSpeedEquivalentAndItsSlotPairsLeaveItOut_TheKernelsFigureReadsDearer()
    {
        // a and b are the same work (1.5 ms at full speed, a block's level moving by 1 % a block); b's second slot of
        // block 2 is a spike. Its kernel's figure reads b dearer; at full speed the two are the same, and the slot
        // pairs' spread holds no pair with the spike in it.
        var runs = Enumerable.Range(1, 4).SelectMany(b => new[]
        {
            Run("a", b, Scaled(Slot(), b), Scaled(Slot(), b), Scaled(Slot(), b)),
            Run("b", b, Scaled(Slot(), b), Scaled(b == 2 ? Slot(500, 0.6, 1.2) : Slot(), b), Scaled(Slot(), b)),
        }).ToList();

        var raw = VariantStatistics.CompareOne(runs, "a", "b", "all", Metrics.CpuPerRequest, 2);
        var fullSpeed = VariantStatistics.CompareOne(runs, "a", "b", "all", Metrics.CpuPerRequestAtFullSpeed, 2);
        var spread = SlotSpread.Of(runs, "a", "b", Metrics.CpuPerRequestAtFullSpeed)!;

        Assert.True(raw.ChangePercent > 3, raw.ChangePercent.ToString(System.Globalization.CultureInfo.InvariantCulture));
        Assert.Equal(0, fullSpeed.ChangePercent, 6);
        Assert.Equal(Verdict.Equivalent, fullSpeed.Verdict);
        // 4 blocks of 3 pairs, one pair left out: 3 · 2 + 1 degrees of freedom, and no spread among identical pairs.
        Assert.Equal(7, spread.DegreesOfFreedom);
        Assert.Equal(0, spread.LogSd, 9);
    }

    [Fact]
    public void Analyze_SpikesInSomeSlots_TheNotesNameTheVariantsAndCount()
    {
        var experiment = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).First(e => e.Name == "gc");
        var runs = Enumerable.Range(1, 3).SelectMany(b => experiment.Variants.Select(v =>
            Run(v.Name, b, Slot(), b == 2 && v.Name == "server" ? Slot(500, 0.6, 1.2) : Slot(), Slot()))).ToList();
        var settings = new AnalysisSettings(ProfileName.Quick, null, false,
            NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json")));

        var notes = ExperimentAnalyzer.Analyze(experiment, runs, settings).Notes;

        Assert.Contains("CPU per request at full speed: slots left out as spikes, each over 1.5 times its run's median slot (server 1 of 27 "
            + "slots): what the machine did in those seconds, not the variant (docs/cost.md, \"Spikes\").", notes);
        Assert.DoesNotContain(ExperimentAnalyzer.Analyze(experiment, [.. runs.Select(r => r with
        {
            Cost = new CpuCost([Slot(), Slot(), Slot()]),
        })], settings).Notes, n => n.Contains("spikes", StringComparison.Ordinal));
    }

    private static CpuWindow Scaled(CpuWindow w, int block) =>
        w with { AppCpuSeconds = w.AppCpuSeconds * (1 + 0.01 * block), DatabaseCpuSeconds = w.DatabaseCpuSeconds * (1 + 0.01 * block) };

    private static RunRecord Run(string variant, int block, params CpuWindow[] windows) => CostMetricTests.Run(variant, block, windows);
}
