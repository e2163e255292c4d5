using PerfLab.Experiments.Analysis;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

public sealed class NoiseEstimateTests
{
    [Fact]
    public void SecondToSecondCvPercent_Alternating100And110_SuccessiveDifferencesOverTheMean()
    {
        var values = Enumerable.Range(0, 20).Select(i => i % 2 == 0 ? 100.0 : 110.0).ToList();

        // Every difference is 10: √(100/2) = 7.07 over the mean 105.
        Assert.Equal(7.07 / 105 * 100, NoiseEstimate.SecondToSecondCvPercent(values), 2);
    }

    [Fact]
    public void SecondToSecondCvPercent_SteadyDrift_AlmostNothing()
    {
        // 100 to 200 in steps of 1: a plain CV would read 29 %; second to second it is 1/√2 over the mean 150.
        var values = Enumerable.Range(0, 101).Select(i => 100.0 + i).ToList();

        Assert.Equal(0.707 / 150 * 100, NoiseEstimate.SecondToSecondCvPercent(values), 2);
        Assert.True(double.IsNaN(NoiseEstimate.SecondToSecondCvPercent([1, 2])));
    }

    [Fact]
    public void HalfWidth_FourBlocksOfThreeSlotPairs_TOverRootOfTwelve()
    {
        // t(0.975, 3) = 3.182; twelve slot pairs of 10 % each.
        Assert.Equal(3.182 * 10 / Math.Sqrt(12), NoiseEstimate.HalfWidth(10, new BlockShape(4, 3, 5)), 2);
    }

    [Fact]
    public void AtStart_SteadyCoreNoisyThroughput_CostDecidesWhatThroughputCannot()
    {
        var warmup = Enumerable.Range(0, 10).Select(i => i % 2 == 0 ? 200.0 : 240.0).ToList();
        var calibration = new CpuCalibration([100, 150, 100, 150], [100, 100, 101, 99]);
        var shape = new BlockShape(4, 2, 4);

        var noise = NoiseEstimate.AtStart(warmup, calibration, shape);

        // RPS: 40 / √2 / 220 = 12.86 % per second; a slot pair of 4 s: √2 · 12.86 / 2 = 9.09 %; 8 pairs, t(3).
        Assert.Equal(12.86, noise.RpsCvPercent, 1);
        Assert.Equal(3.182 * 9.09 / Math.Sqrt(8), noise.RpsDecidablePercent, 1);
        // Cost follows the core's speed alone: CV 0.816 %, √2 per pair.
        Assert.Equal(0.816, noise.CostCvPercent!.Value, 2);
        Assert.Equal(3.182 * Math.Sqrt(2) * 0.816 / Math.Sqrt(8), noise.CostDecidablePercent!.Value, 2);
        Assert.Equal(80, noise.CoreSharePercent!.Value, 1);
    }

    [Fact]
    public void Measured_SlotPairsWithKnownSpread_HalfWidthsFromTheirLogRatios()
    {
        // Throughput ratios of 1.1 and 1/1.1 by turns, cost ratios all equal: cost is exact, throughput is not.
        var pairs = Enumerable.Range(0, 8).Select(i => new SlotPair(100, i % 2 == 0 ? 110 : 100 / 1.1, 2.0, 2.2)).ToList();

        var noise = NoiseEstimate.Measured(pairs, new BlockShape(4, 2, 5))!;

        var logSd = Math.Log(1.1) * Math.Sqrt(8.0 / 7);
        Assert.Equal((Math.Exp(logSd) - 1) * 100, noise.RpsCvPercent, 3);
        Assert.Equal(0, noise.CostCvPercent!.Value, 6);
        Assert.Equal(0, noise.CostDecidablePercent!.Value, 6);
        Assert.Null(NoiseEstimate.Measured(pairs.Take(2).ToList(), new BlockShape(4, 2, 5)));
    }

    [Fact]
    public void Describe_CalibratedNoise_SaysWhatCannotAndWhatCanBeDecided()
    {
        var noise = new MachineNoise("calibration", 12.3, 1.2, 9.87, 2.04, 1.2, 81.4);

        Assert.Equal("this run can tell CPU-per-request changes of 2 % or more apart; RPS changes of 9.9 % (estimated for this budget " +
            "from its first seconds). RPS varies 12.3 % second to second, CPU per request 1.2 %. A busy thread had a core 81 % of the " +
            "time; the core's speed varied 1.2 %", noise.Describe());
        Assert.Equal("this run can tell RPS changes of 3 % or more apart (from its slots' spread); CPU per request not measured. " +
            "RPS varies 5 % slot to slot", new MachineNoise("measured", 5, null, 3, null).Describe());
        // Seed 001's smoke run: bursts give no RPS spread, so the cost's spread is said alone, with what it is.
        Assert.Equal("one repetition gives no 95 % interval, so this run can tell no change apart from noise (two or more can). " +
            "CPU per request varies 1.6 % second to second", new MachineNoise("calibration", 0, 1.6, 0, 3) { Blocks = 1 }.Describe());
    }

    [Fact]
    public void Describe_OneRepetitionOfAStarvedVariant_SaysWhatCouldNotBeMeasuredNeverZeroOrNaN()
    {
        // Seed 003's smoke run: one repetition, and the starved sync variant's seconds all completed the same count.
        var calibration = new CpuCalibration([100, 100, 100], [100, 100, 100]);
        var oneRepetition = NoiseEstimate.AtStart([8, 8, 8, 8], calibration, new BlockShape(1, 1, 4));
        var threeBlocks = NoiseEstimate.AtStart([8, 8, 8, 8], calibration, new BlockShape(3, 1, 4));
        var nothing = new MachineNoise("calibration", double.NaN, double.NaN, double.NaN, double.NaN);

        Assert.Equal((0, 0), (oneRepetition.RpsCvPercent, oneRepetition.RpsDecidablePercent));
        Assert.Equal("one repetition gives no 95 % interval, so this run can tell no change apart from noise (two or more can). " +
            "A busy thread had a core 100 % of the time; the core's speed did not vary measurably", oneRepetition.Describe());
        Assert.Equal("this run cannot say which changes it can tell apart: CPU-per-request noise could not be measured; RPS noise " +
            "could not be measured (throughput did not vary second to second: too few requests completed to show it). A busy thread " +
            "had a core 100 % of the time; the core's speed did not vary measurably", threeBlocks.Describe());
        Assert.Equal("this run cannot say which changes it can tell apart: CPU-per-request noise could not be measured; RPS noise " +
            "not known (no run had three seconds of steady throughput)", nothing.Describe());
        foreach (var line in new[] { oneRepetition.Describe(), threeBlocks.Describe(), nothing.Describe() })
        {
            Assert.DoesNotMatch(@"(?<![\d.])0 %|NaN", line);
        }
    }

    [Fact]
    public void AtStart_FirstRunHasNoSteadySeconds_TheNextSteadyRunGivesTheRpsNoise()
    {
        // A starved blocking variant completes its 12 s requests in a few bursts: two seconds with completions, no CV.
        var template = PerfLab.Tests.Reports.ReportFixtures.Sample().Experiments[0];
        var starved = template with { Name = "db-wait", Runs = [TestRuns.Ok("sync", 1, 0, 9.8, 0, 0, 50, 0, 48)] };
        var steady = template with { Runs = [TestRuns.Ok("newtonsoft", 1, 1, 220, 200, 240, 200, 240, 200, 240)] };
        var bursts = template with { Name = "sleep-vs-delay", Runs = [TestRuns.Ok("sync", 1, 0, 26, 0, 200, 0, 10, 190) with { BatchTimesMs = [7227, 7826] }] };
        var calibration = new CpuCalibration([100, 100, 100], [100, 100, 100]);

        var noise = RunOpening.AtStart(calibration, [starved, bursts, steady])!;
        var alone = RunOpening.AtStart(calibration, [starved])!;
        var batchesOnly = RunOpening.AtStart(calibration, [bursts])!;

        Assert.Equal(NoiseEstimate.SecondToSecondCvPercent([200, 240, 200, 240, 200, 240]), noise.RpsCvPercent, 6);
        Assert.True(double.IsNaN(alone.RpsCvPercent));
        Assert.Contains("RPS noise not known (no run had three seconds of steady throughput)", alone.Describe());
        Assert.DoesNotContain("NaN", alone.Describe());
        Assert.True(double.IsNaN(batchesOnly.RpsCvPercent), "a burst's per-second completions are not the machine's noise");
    }

    [Fact]
    public void AtStart_CapacitySearchesOnly_RpsNoiseNotKnown()
    {
        // A search's seconds are its steps' rising rates (here a steady-looking 200-240): not the machine's noise, and a
        // "changes under 0.5 % cannot be decided" from them would contradict the search's own wide interval.
        var template = PerfLab.Tests.Reports.ReportFixtures.Sample().Experiments[0];
        var search = new CapacityResult
        {
            Url = "http://127.0.0.1:5000/customer/orders/1", Slo = "p99<100ms, errors<1%", LatencyMetric = "p99", LatencyLimitMs = 100,
            Outcome = CapacityOutcome.Found, CapacityRps = 220, Summary = "holds at 220 RPS", StepSeconds = 3, WarmupSeconds = 1, Steps = [],
        };
        var capacity = template with
        {
            Name = "sync-async-capacity",
            Runs = [TestRuns.Ok("sync", 1, 0, 220, 200, 240, 200, 240, 200, 240) with { Capacity = search }],
        };

        var noise = RunOpening.AtStart(new CpuCalibration([100, 100, 100], [100, 100, 100]), [capacity])!;

        Assert.True(double.IsNaN(noise.RpsCvPercent));
        Assert.Contains("RPS noise not known", noise.Describe());
    }

    [Fact]
    public void Of_ExperimentsMeasuredSlots_TheMedianHalfWidthsOfTheirComparisonsNotTheCalibrations()
    {
        static Comparison Compared(string variant, string metric, double halfWidth) => new()
        {
            Variant = variant, Scenario = Metric.AllScenarios, Metric = Metrics.Get(metric), HigherIsBetter = metric == Metrics.Rps.Key,
            ChangePercent = 0, LowPercent = -halfWidth, HighPercent = halfWidth, NoiseFloorPercent = 5, Method = "paired",
            Verdict = Verdict.Inconclusive,
        };
        var template = PerfLab.Tests.Reports.ReportFixtures.Sample().Experiments[0];
        // a decides cost at the cores' full speed (compared beside the kernel's figure); b has the kernel's figure only.
        var a = template with
        {
            Name = "a", MachineNoise = new MachineNoise("measured", 10, 8, 1, 1),
            Comparisons = [Compared("x", Metrics.Rps.Key, 10), Compared("x", Metrics.CpuPerRequestAtFullSpeed.Key, 4), Compared("x", Metrics.CpuPerRequest.Key, 6)],
        };
        var b = template with
        {
            Name = "b", MachineNoise = new MachineNoise("measured", 20, 12, 1, 1),
            Comparisons = [Compared("y", Metrics.Rps.Key, 20), Compared("z", Metrics.Rps.Key, 30), Compared("y", Metrics.CpuPerRequest.Key, 8),
                Compared("z", Metrics.CpuPerRequest.Key, 12)],
        };
        // A calibration whose core never changed speed: it alone would call a cost change of almost nothing decidable.
        var calibration = new CpuCalibration([100, 100, 100], [100, 100, 100]);
        var opening = RunOpening.AtStart(calibration, [a, b]);

        var noise = DecidableNoise.Of(opening, [a, b])!;

        // Half-widths ±10, ±20, ±30 % on RPS (each interval's points, narrower than its ratio); 4, 8 and 12 % on cost.
        Assert.Equal(20, noise.RpsDecidablePercent, 6);
        Assert.Equal(8, noise.CostDecidablePercent!.Value, 6);
        Assert.Equal(15, noise.RpsCvPercent, 6);
        Assert.Equal(10, noise.CostCvPercent!.Value, 6);
        Assert.Equal("this run can tell CPU-per-request changes of 8 % or more apart; RPS changes of 20 % (the median 95 % half-width " +
            "of its 3 comparisons). RPS varies 15 % slot to slot, CPU per request 10 %. A busy thread had a core 100 % of the time; the " +
            "core's speed did not vary measurably", noise.Describe());
        Assert.Equal(3, noise.Comparisons);
        // No experiment measured slots: the calibration's line, as before the first block.
        Assert.Same(opening, DecidableNoise.Of(opening, [template with { MachineNoise = null }]));
        // Invocations pooled: their comparisons' half-widths count as a block's do.
        var pooled = a with { Comparisons = [.. a.Comparisons.Select(c => c with { Method = InvocationPooling.Method, LowPercent = -7, HighPercent = 7 })] };
        Assert.Equal(7, DecidableNoise.Of(opening, [pooled])!.RpsDecidablePercent, 6);
    }

    [Fact]
    public void Analyze_BlocksSpreadBeyondTheirSlots_TheExperimentsLineReadsItsComparisonsNotTheSlotFormula()
    {
        // logging decides on cost. Two slots a run, alike within a block (a fresh process's own cost lasts the block):
        // the blocks move each variant's cost by up to 6 %. The slot formula counts 2 × 4 independent pairs; the paired
        // comparison sees 4 blocks, and what the experiment could decide is what its comparisons say.
        var experiment = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).First(e => e.Name == "logging");
        double[] wobble = [1.06, 0.97, 1.02, 0.95];
        var runs = Enumerable.Range(1, 4).SelectMany(b => experiment.Variants.Select((v, i) =>
        {
            var cost = 2.0 * (v.Name == experiment.Baseline ? 1 : 0.9) * wobble[(b + i) % 4];
            var slot = new CpuWindow(5, 1000, cost, null);
            return RunRecordBuilder.Failed(new RunIdentity(v.Name, b, (b * 3) + i, DateTimeOffset.UnixEpoch),
                new RunFailure(FailureKind.LoadFailed, "")) with
            {
                Status = RunStatus.Ok, FailureKind = null, FailureReason = null, Cost = new CpuCost([slot, slot]),
                Scenarios = [RunRecordBuilder.Stats("order", 2000, 200 / wobble[(b + i) % 4],
                    PerfLab.Load.LatencyStats.From(new PerfLab.Load.LatencyHistogram()))],
            };
        })).ToList();
        var settings = new AnalysisSettings(ProfileName.Quick, null, false,
            NoiseFloors.Load(Path.Combine(Path.GetTempPath(), $"no-floors-{Guid.NewGuid():N}.json")));

        var result = ExperimentAnalyzer.Analyze(experiment, runs, settings);

        var slots = NoiseEstimate.OfRuns(experiment.Baseline, runs)!;
        var costWidths = result.Comparisons.Where(c => c.Scenario == Metric.AllScenarios && c.Metric == Metrics.CpuPerRequest)
            .Select(c => Statistics.HalfWidth(c.LowPercent, c.HighPercent)).Order().ToList();
        Assert.Equal(2, costWidths.Count);
        Assert.Equal((costWidths[0] + costWidths[1]) / 2, result.MachineNoise!.CostDecidablePercent!.Value, 6);
        Assert.True(result.MachineNoise.CostDecidablePercent > 1.1 * slots.CostDecidablePercent!.Value,
            $"{result.MachineNoise.CostDecidablePercent} against the slot formula's {slots.CostDecidablePercent}");
        Assert.Equal(slots.CostCvPercent, result.MachineNoise.CostCvPercent);
        Assert.Equal(2, result.MachineNoise.Comparisons);
        Assert.StartsWith("this experiment can tell CPU-per-request changes of ", result.MachineNoise.Describe("this experiment"));
        Assert.Contains(" (the median 95 % half-width of its 2 comparisons)", result.MachineNoise.Describe("this experiment"));
        Assert.Contains(" (the 95 % half-width of its one comparison)", (result.MachineNoise with { Comparisons = 1 }).Describe());
    }
}
