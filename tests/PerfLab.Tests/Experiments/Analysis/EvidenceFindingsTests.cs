using PerfLab.Experiments.Analysis;
using PerfLab.Results;
using PerfLab.Tests.Reports;
using PerfLab.Tracing;
using PerfLab.Experiments.Running.Measuring;

namespace PerfLab.Tests.Experiments.Analysis;

public sealed class EvidenceFindingsTests
{
    private static TraceProfile Profile(double appMs, double dbMs, params ContentionSite[] contention) => new(
        TracedSeconds: 2,
        SampleIntervalMs: 1,
        TickIntervalMs: 1,
        CpuSamples: (long)(appMs + dbMs),
        WaitingSamples: 0,
        Components: [new ComponentTime(Component.App, appMs, (long)appMs, appMs / (appMs + dbMs)),
                     new ComponentTime(Component.Database, dbMs, (long)dbMs, dbMs / (appMs + dbMs))],
        Gc: new GcSummary([0, 0, 0], 0, 0, 0, 0, 0, 0, 0, 0, "unknown"),
        Contention: contention,
        BlockingWaits: [],
        ThreadPool: new ThreadPoolSummary(0, 0, 0, 4),
        TopStacks: [],
        Stacks: [],
        Warnings: []);

    private static TracedRun Traced(string variant, TraceProfile profile, long requests) =>
        new(EvidenceCapture.ToEvidence(profile, variant, 1, requests, database: null), TraceFindings.From(profile, requests), []);

    [Fact]
    public void ToMeasuredCpu_SamplesOverstateCpu_KeepsSharesAndTakesTheKernelsTotal()
    {
        // 3,000 ms of "on-CPU" samples in 2 s on a 1-core budget: the kernel charged 500 ms per second, 1,000 ms in all.
        var scaled = EvidenceCapture.ToMeasuredCpu(Profile(appMs: 1_000, dbMs: 2_000), cpuMsPerSecond: 500);

        Assert.Equal(1_000, scaled.CpuMs, 6);
        Assert.Equal(1_000.0 / 3, scaled.ComponentMs(Component.App), 6);
        Assert.Equal(2_000.0 / 3, scaled.ComponentMs(Component.Database), 6);
        Assert.Same(scaled.Components, EvidenceCapture.ToMeasuredCpu(scaled, double.NaN).Components);
    }

    // A net9.0 trace once held 7 CPU samples for 4251 ms the kernel charged: its "GC share" came out at 70 %.
    [Fact]
    public void WithSamplerCoverage_FewSamplesForTheChargedCpu_LeavesOutTheBreakdownAndTheGcShare()
    {
        var sparse = Profile(appMs: 3, dbMs: 4) with { Gc = new GcSummary([9, 16, 2], 49, 0.01, 49, 49, 0.7, 0.7, 0, 1, "one heap") };

        var checkedTrace = EvidenceCapture.WithSamplerCoverage(sparse, chargedMs: 4_251);
        var evidence = EvidenceCapture.ToEvidence(checkedTrace, "net9.0", 1, requests: 8_000, database: null);

        Assert.Empty(checkedTrace.Components);
        Assert.Contains("7 CPU samples (7 ms) for 4251 ms of CPU", Assert.Single(checkedTrace.Warnings));
        Assert.Empty(evidence.CpuMsPerRequest);
        Assert.Null(evidence.GcCpuShare);
        Assert.Equal(0.01, evidence.GcPauseShare!.Value, 6); // event-based figures stay
        Assert.DoesNotContain(TraceFindings.From(checkedTrace, 8_000), f => f.Kind is TraceFindingKind.GcHeadroom);
    }

    [Theory]
    [InlineData(1_000.0)] // samples cover 300 % (a busy machine overstates)
    [InlineData(12_000.0)] // 25 %: just enough
    [InlineData(double.NaN)] // the kernel's figure unknown: nothing to check against
    public void WithSamplerCoverage_EnoughSamples_Unchanged(double chargedMs)
    {
        var trace = Profile(appMs: 1_000, dbMs: 2_000);

        Assert.Same(trace, EvidenceCapture.WithSamplerCoverage(trace, chargedMs));
    }

    [Fact]
    public void Apply_OneTraceWithoutABreakdown_SaysTheCpuWasNotCompared()
    {
        var experiment = ReportFixtures.Sample().Experiments[0];
        var (baseline, other) = (experiment.Variants[0], experiment.Variants[1]);
        var sparse = EvidenceCapture.WithSamplerCoverage(Profile(3, 4), chargedMs: 4_000);

        var applied = EvidenceFindings.Apply(experiment with { Baseline = baseline, Findings = [] },
            [Traced(baseline, Profile(100, 100), 100), Traced(other, sparse, 100)]);

        var change = Assert.Single(applied.Findings, f => f.Variant == other && f.Place == "per request");
        Assert.StartsWith("against " + baseline + ": CPU not compared", change.Message);
    }

    [Fact]
    public void ToEvidence_PerRequestFiguresFromTheTrace()
    {
        var site = new ContentionSite("CulpritsApi.HoldLock", "PerfLab.Sut!CulpritsApi.HoldLock", 40, 200, ["Root", "CulpritsApi.HoldLock"]);
        var evidence = EvidenceCapture.ToEvidence(Profile(100, 300, site), "b", 2, requests: 100, database: null);

        Assert.Equal(1.0, evidence.CpuMsPerRequest["App"], 6);
        Assert.Equal(3.0, evidence.CpuMsPerRequest["Database"], 6);
        Assert.Equal(2.0, evidence.LockBlockedMsPerRequest!.Value, 6);
        Assert.Equal("CulpritsApi.HoldLock", Assert.Single(evidence.Contention).Method);
    }

    [Fact]
    public void Apply_TracedVariant_WithdrawsTheCounterGuessAndAddsThePlaceAndTheChange()
    {
        var experiment = ReportFixtures.Sample().Experiments[0];
        var (baseline, other) = (experiment.Variants[0], experiment.Variants[1]);
        var guess = new Finding(other, FindingKind.LockContention, "lock contention", "log less", "0.3 contentions per request");
        var untraced = new Finding(experiment.Variants[2], FindingKind.LockContention, "lock contention", "log less", "0.3 per request");
        var result = experiment with { Baseline = baseline, Findings = [guess, untraced] };
        var site = new ContentionSite("CulpritsApi.HoldLock", "PerfLab.Sut!CulpritsApi.HoldLock", 40, 200, ["Root", "CulpritsApi.HoldLock"]);

        var applied = EvidenceFindings.Apply(result, [Traced(baseline, Profile(100, 100), 100), Traced(other, Profile(100, 300, site), 100)]);

        Assert.DoesNotContain(guess, applied.Findings);
        Assert.Contains(untraced, applied.Findings); // no trace of that variant: the counters' finding stays, weak
        var named = Assert.Single(applied.Findings, f => f.Variant == other && f.Kind == FindingKind.LockContention);
        Assert.Equal("CulpritsApi.HoldLock", named.Place);
        Assert.Equal(EvidenceStrength.Strong, named.Strength);
        var change = Assert.Single(applied.Findings, f => f.Variant == other && f.Place == "per request");
        Assert.Contains("CPU 2.000 -> 4.000 ms per request (Database +2.000 ms, App +0.000 ms)", change.Message);
        Assert.Contains("lock-blocked 0.00 -> 2.00 ms", change.Message);
        Assert.Equal([baseline, other], applied.Evidence.Select(e => e.Variant));
    }

    [Fact]
    public void Apply_NothingTraced_LeavesTheResultAlone()
    {
        var experiment = ReportFixtures.Sample().Experiments[0];
        Assert.Same(experiment, EvidenceFindings.Apply(experiment, []));
    }
}
