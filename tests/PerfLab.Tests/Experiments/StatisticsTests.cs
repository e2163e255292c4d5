using PerfLab.Results;

namespace PerfLab.Tests.Experiments;

public sealed class StatisticsTests
{
    [Fact]
    public void Estimate_KnownSamples_GivesMedianAndStudentTInterval()
    {
        var estimate = Statistics.Estimate([10, 12, 14]);
        Assert.Equal(12, estimate.Median);
        // mean 12, s = 2, t(0.975, 2) = 4.3027: 12 ± 4.3027 * 2 / sqrt(3) = 12 ± 4.968
        Assert.Equal(7.032, estimate.Low, 2);
        Assert.Equal(16.968, estimate.High, 2);
        Assert.Equal(3, estimate.Samples);
    }

    [Fact]
    public void Estimate_OneSample_HasNoWidth()
    {
        Assert.Equal(new Estimate(5, 5, 5, 1), Statistics.Estimate([5]));
    }

    [Fact]
    public void Compare_TenPercentShiftWithLowNoise_IsBetterWithAnIntervalAroundTen()
    {
        var (change, low, high, verdict) = Statistics.Compare([100, 101, 99, 100, 100.5], [110, 111, 109, 110, 110.5], higherIsBetter: true, noiseFloorPercent: 2);
        Assert.Equal(Verdict.Better, verdict);
        Assert.InRange(change, 9.9, 10.1);
        Assert.True(low > 8 && high < 12, $"interval [{low}, {high}]");
    }

    [Fact]
    public void Compare_LatencyUp_IsWorse()
    {
        var (_, _, _, verdict) = Statistics.Compare([10, 10.2, 9.9], [15, 15.3, 14.8], higherIsBetter: false, noiseFloorPercent: 2);
        Assert.Equal(Verdict.Worse, verdict);
    }

    [Fact]
    public void Compare_TightIntervalInsideTheNoiseFloor_IsEquivalent()
    {
        var (change, low, _, verdict) = Statistics.Compare([100, 100.1, 99.9], [103, 103.1, 102.9], higherIsBetter: true, noiseFloorPercent: 5);
        Assert.True(low > 0, "the interval excludes zero");
        Assert.InRange(change, 2.9, 3.1);
        Assert.Equal(Verdict.Equivalent, verdict);
    }

    [Fact]
    public void Compare_OneRepetition_IsInconclusive()
    {
        Assert.Equal(Verdict.Inconclusive, Statistics.Compare([100], [150], true, 0).Verdict);
    }

    [Fact]
    public void Compare_AaPairsFromOneDistribution_CallADifferenceAtMostFivePercentOfTheTime()
    {
        // 2,000 synthetic A/A experiments of 3 repetitions each, RPS ~ N(1000, 50): the verdict must say
        // neither better nor worse at least 95 % of the time even with no noise floor at all.
        var random = new Random(20261121);
        double Draw() => 1000 + 50 * Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble());
        var falsePositives = 0;
        const int trials = 2000;
        for (var i = 0; i < trials; i++)
        {
            var a = new[] { Draw(), Draw(), Draw() };
            var b = new[] { Draw(), Draw(), Draw() };
            if (Statistics.Compare(a, b, true, noiseFloorPercent: 0).Verdict is Verdict.Better or Verdict.Worse)
            {
                falsePositives++;
            }
        }
        Assert.True(falsePositives <= trials * 0.06, $"{falsePositives} of {trials} A/A pairs called a difference");
    }

    [Fact]
    public void Compare_TrueTenPercentShiftAtFivePercentNoise_IsDetectedMostOfTheTimeWithFiveRepetitions()
    {
        var random = new Random(7);
        double Draw(double mean) => mean * (1 + 0.03 * Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble()));
        var detected = 0;
        for (var i = 0; i < 500; i++)
        {
            var a = Enumerable.Range(0, 5).Select(_ => Draw(1000)).ToArray();
            var b = Enumerable.Range(0, 5).Select(_ => Draw(1100)).ToArray();
            if (Statistics.Compare(a, b, true, noiseFloorPercent: 2).Verdict == Verdict.Better)
            {
                detected++;
            }
        }
        Assert.True(detected > 400, $"detected {detected} of 500");
    }

    [Fact]
    public void ToDecide_SeveralFoldChangeOfTwoBlocks_AThirdBlockOnTheRatiosLogScale()
    {
        // The default run's sync-over-async (quiet, 2026-11-29): blocks at 5.9x and 9.8x, +659.9 % [-69.5, +18817.1].
        // In points the half-width is 9443 and looked hopeless; as a ratio it is 7.6 ×/÷ 24.8: log half-width 3.21, the
        // change 2.03, one block's spread 3.21·√2/12.71 = 0.357, and with three t(2)·0.357/√3 = 0.89 < 2.03.
        var need = Statistics.ToDecide(659.9, -69.5, 18817.1, samples: 2, marginPercent: 5);

        Assert.Equal(3, need?.Samples);
        Assert.Equal(659.9, need!.Value.HalfWidthPercent, 0);
    }

    [Fact]
    public void ToDecide_WelchIntervalCentredApartFromTheChange_TheHalfWidthAboutItsOwnCentre()
    {
        // The sample run's Welch comparison: a change of medians −17.0 %, an interval of means [−25.1, +2.2] %. Its
        // geometric centre is √(0.749·1.022) = 0.875, i.e. −12.5 %: a ×/÷ half-width under 1/0.875, +14.3 %, about that
        // centre leaves zero out (about −17 % it would not). One group's spread 0.155·√2/12.71; three give 0.043 < 0.134.
        var need = Statistics.ToDecide(-17.0, -25.1, 2.2, samples: 2, marginPercent: 3);

        Assert.Equal(3, need?.Samples);
        Assert.Equal(14.3, need!.Value.HalfWidthPercent, 1);
    }

    [Fact]
    public void ToDecide_SmallChangeOfTwoBlocks_CountsStudentsTShrinkingNotTheSquareRootAlone()
    {
        // +1 % [-9, +11] against a 5 % margin must fit inside ±5: a half-width of 4. One block's spread is 10·√2/12.71 = 1.11;
        // three blocks give t(2)·1.11/√3 = 2.77 < 4. The square root alone said 2·(10/4)² = 13.
        var need = Statistics.ToDecide(1, -9, 11, samples: 2, marginPercent: 5);

        Assert.Equal((4.0, 3), need);
    }

    [Theory]
    [InlineData(5.0, -1.0, 11.0, 5.0)]     // on the margin: no interval ever fits inside ±5 or leaves zero beyond it
    [InlineData(0.1, -99.0, 101.0, 0.2)]   // needs a half-width of 0.1 from one of 100 points: about 48,000 blocks
    public void ToDecide_UndecidableByMoreSamples_Null(double change, double low, double high, double margin)
    {
        Assert.Null(Statistics.ToDecide(change, low, high, samples: 2, marginPercent: 5, equivalenceMarginPercent: margin));
    }
}
