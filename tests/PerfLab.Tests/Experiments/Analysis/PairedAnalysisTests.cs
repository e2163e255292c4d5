using PerfLab.Experiments.Analysis;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

public sealed class PairedAnalysisTests
{
    private static RunRecord Run(string variant, int block, double rps) => TestRuns.Ok(variant, block, block, rps);

    [Fact]
    public void ComparePaired_ThreeHandComputedPairs_GivesTheMeanLogRatioAndItsTInterval()
    {
        // Log-ratios ln 1.10, ln 1.12, ln 1.08; t(0.975, 2) = 4.3027; computed independently.
        var (change, low, high, verdict) = Statistics.ComparePaired([(100, 110), (100, 112), (100, 108)], higherIsBetter: true, noiseFloorPercent: 5);

        Assert.Equal(9.9879, change, 3);
        Assert.Equal(5.1301, low, 3);
        Assert.Equal(15.0701, high, 3);
        Assert.Equal(Verdict.Better, verdict);
    }

    /// <summary>Both variants drift +6 % per block, the candidate is 3 % faster, and each run has ±0.5 % noise of its own.</summary>
    private static List<RunRecord> Drifting(double candidateFactor)
    {
        double[] noise = [0.005, -0.004, 0.002, -0.005, 0.003, -0.002, 0.004, -0.003];
        return Enumerable.Range(0, 8).SelectMany(b => new[]
        {
            Run("base", b + 1, 1000 * Math.Pow(1.06, b) * (1 + noise[b])),
            Run("cand", b + 1, 1000 * candidateFactor * Math.Pow(1.06, b) * (1 - noise[(b + 3) % 8])),
        }).ToList();
    }

    [Fact]
    public void CompareOne_DriftAcrossBlocks_PairingRecoversTheTrueChangeWhereWelchCannot()
    {
        var runs = Drifting(1.03);

        var paired = VariantStatistics.CompareOne(runs, "base", "cand", "all", Metrics.Rps, noiseFloorPercent: 1);
        Assert.Equal("paired", paired.Method);
        Assert.Equal(8, paired.Pairs);
        Assert.InRange(paired.ChangePercent, 2.5, 3.5);
        Assert.True(paired.HighPercent - paired.LowPercent < 2, $"interval [{paired.LowPercent}, {paired.HighPercent}]");
        Assert.Equal(Verdict.Better, paired.Verdict);
        Assert.Equal(Math.Max((paired.HighPercent - paired.LowPercent) / 2, 1), paired.MinimumDetectableEffectPercent!.Value, 9);

        // The same runs as independent groups: the drift's spread swamps the 3 %.
        var welch = Statistics.Compare(
            runs.Where(r => r.Variant == "base").Select(r => r.Scenarios[0].Rps).ToList(),
            runs.Where(r => r.Variant == "cand").Select(r => r.Scenarios[0].Rps).ToList(), higherIsBetter: true, noiseFloorPercent: 1);
        Assert.True(welch.Low < 0 && welch.High > 0, $"Welch [{welch.Low}, {welch.High}]");
        Assert.Equal(Verdict.Inconclusive, welch.Verdict);
    }

    [Fact]
    public void CompareOne_IdenticalVariantsWithDrift_CallsNothing()
    {
        var comparison = VariantStatistics.CompareOne(Drifting(1.0), "base", "cand", "all", Metrics.Rps, noiseFloorPercent: 1);

        Assert.Equal("paired", comparison.Method);
        Assert.True(comparison.LowPercent < 0 && comparison.HighPercent > 0, $"[{comparison.LowPercent}, {comparison.HighPercent}]");
        Assert.NotEqual(Verdict.Better, comparison.Verdict);
        Assert.NotEqual(Verdict.Worse, comparison.Verdict);
    }

    [Fact]
    public void CompareOne_BlocksWithoutBothVariants_FallsBackToWelch()
    {
        // Each variant ran in blocks of its own: nothing pairs.
        List<RunRecord> runs = [Run("base", 1, 100), Run("base", 2, 104), Run("cand", 3, 120), Run("cand", 4, 118)];

        var comparison = VariantStatistics.CompareOne(runs, "base", "cand", "all", Metrics.Rps, noiseFloorPercent: 5, floorSource: "measured");

        Assert.Equal("welch", comparison.Method);
        Assert.Equal(0, comparison.Pairs);
        Assert.Equal("measured", comparison.NoiseFloorSource);
    }

    [Fact]
    public void PairedFalsePositiveRate_IdenticalLabels_RarelyCallsADifference()
    {
        var runs = Drifting(1.0);
        var pairs = VariantStatistics.Pairs(runs, "base", "cand", "all", Metrics.Rps);

        var rate = VariantStatistics.PairedFalsePositiveRate(pairs, Metrics.Rps, noiseFloorPercent: 0);

        // Random relabelling of 8 exchangeable pairs: near the nominal 5 %, never near 1.
        Assert.InRange(rate, 0.0, 0.15);
        Assert.True(VariantStatistics.PairedFalsePositiveRate(pairs, Metrics.Rps, noiseFloorPercent: 50) == 0);
    }

    [Fact]
    public void Estimate_WideSpreadNearZero_NeverGoesBelowZero()
    {
        var estimate = Statistics.Estimate([1, 2, 40]);

        Assert.Equal(0, estimate.Low);
        Assert.True(estimate.High > 40);
    }
}
