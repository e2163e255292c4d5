using PerfLab.Reports;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

/// <summary>Where an experiment's time goes (issue 46, part 1): the share of its wall time inside measured windows.</summary>
public sealed class DutyCycleTests
{
    [Fact]
    public void Of_RunsWithSlotsAndWithout_AddsTheirWindowsAndCountsNothingForAFailedRun()
    {
        var slotted = TestRuns.Ok("a", 1, 1, 100) with
        {
            Cost = new CpuCost([new CpuWindow(2.0, 200, 0.4, 0.1), new CpuWindow(1.5, 150, 0.3, 0.1)]),
        };
        var timed = TestRuns.Ok("b", 1, 2, 100, 10, 11, 12, 13);
        var failed = TestRuns.Ok("c", 1, 3, 100, 10, 11) with { Status = RunStatus.Failed };

        var time = DutyCycle.Of([slotted, timed, failed], wallSeconds: 30);

        Assert.Equal(7.5, time.MeasuredSeconds, 9);
        Assert.Equal(0.25, time.Share!.Value, 9);
        Assert.Equal(
            "25.0 % of its 30 s inside measured windows (8 s); the rest started, warmed up, traced and stopped its processes.",
            EvidenceContent.Time(Result(time)));
        Assert.Null(EvidenceContent.Time(Result(null)));
    }

    private static ExperimentResult Result(DutyCycle? time) => new()
    {
        Name = "e", Title = "e", Seed = "000", Reproduces = "", FileHash = "", Baseline = "a", LoadDescription = "",
        Variants = ["a"], Scenarios = ["s"], Warmup = TimeSpan.Zero, Duration = TimeSpan.Zero, Runs = [], Summaries = [],
        Comparisons = [], Findings = [], Claims = [], Time = time,
    };
}
