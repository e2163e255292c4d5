using PerfLab.Experiments.Analysis;
using PerfLab.Results;

namespace PerfLab.Tests.Experiments.Analysis;

public sealed class NoiseAnalysisTests
{
    private static RunRecord Run(string variant, int order, double rps, params double[] perSecond) =>
        TestRuns.Ok(variant, 1 + ((order - 1) / 2), order, rps, perSecond);

    [Fact]
    public void Of_AlternatingSeconds_WithinRunCvSkipsThePartialEdgesAndScalesBySqrtOfSeconds()
    {
        // Inner seconds 90, 110, ... (six of them): mean 100, sample SD sqrt(6 * 100 / 5) = 10.954; the edges (1 and 500) are partial seconds.
        double[] timeline = [1, 90, 110, 90, 110, 90, 110, 500];
        var noise = NoiseAnalysis.Of([Run("a", 1, 100, timeline), Run("a", 2, 100, timeline)])!;

        Assert.Equal(Math.Sqrt(120), noise.WithinRunCvPercent, 6);
        Assert.Equal(Math.Sqrt(120) / Math.Sqrt(6), noise.ExpectedRunToRunCvPercent, 6);
        Assert.Equal(2, noise.Runs);
    }

    [Fact]
    public void Of_TwoPercentDriftPerRunOnBothVariants_FindsTheDriftAndNoOtherNoise()
    {
        // A and B interleaved (orders 1..8), each 2 % faster than the run before it, B 20 % above A throughout.
        var runs = Enumerable.Range(1, 8)
            .Select(order => Run(order % 2 == 1 ? "a" : "b", order, (order % 2 == 1 ? 100 : 120) * Math.Pow(1.02, order - 1)))
            .ToList();

        var noise = NoiseAnalysis.Of(runs)!;

        Assert.Equal(2.0, noise.DriftPercentPerRun, 6);
        Assert.Equal(1.0, noise.DriftShare, 6);
        Assert.Equal(0.0, noise.RunToRunCvPercent, 6);
    }

    [Fact]
    public void Of_NoDriftAndAKnownSpread_AttributesItToRunToRunNoise()
    {
        // Symmetric around the order's middle, so the fitted slope is zero: log-values ±d around each variant's mean.
        var d = Math.Log(1.05);
        double[] offsets = [d, -d, -d, d];
        var runs = offsets.Select((o, i) => Run("a", (2 * i) + 1, 100 * Math.Exp(o)))
            .Concat(offsets.Select((o, i) => Run("b", (2 * i) + 2, 200 * Math.Exp(-o))))
            .ToList();

        var noise = NoiseAnalysis.Of(runs)!;

        // Residual SD: 8 squared deviations of d over 8 - 2 variants - 1 slope = 5 degrees of freedom.
        var expectedSd = Math.Sqrt(8 * d * d / 5);
        Assert.Equal((Math.Exp(expectedSd) - 1) * 100, noise.RunToRunCvPercent, 1);
        Assert.True(noise.DriftShare < 0.1, $"drift share {noise.DriftShare}");
    }

    [Fact]
    public void Of_FewerThanTwoSuccessfulRuns_IsNull()
    {
        Assert.Null(NoiseAnalysis.Of([Run("a", 1, 100)]));
    }
}
