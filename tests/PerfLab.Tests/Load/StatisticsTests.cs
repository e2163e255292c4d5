using PerfLab.Common;

namespace PerfLab.Tests.Load;

public sealed class StatisticsTests
{
    [Theory]
    [InlineData(1, 636.619)]
    [InlineData(4, 8.610)]
    [InlineData(9, 4.781)]
    [InlineData(19, 3.883)]
    [InlineData(199, 3.340)]
    public void InverseCdf_TwoSided999_MatchesPublishedTable(int df, double expected)
    {
        Assert.Equal(expected, StudentT.InverseCdf(0.9995, df), 2);
    }

    [Fact]
    public void MarginOfError_TenBatches_IsTQuantileTimesStandardError()
    {
        double[] batches = [180, 182, 185, 183, 190, 184, 186, 181, 188, 187];
        var sd = StudentT.StdDev(batches);
        Assert.Equal(Math.Sqrt(92.4 / 9), sd, 9);
        Assert.Equal(4.781 * sd / Math.Sqrt(10), StudentT.MarginOfError(batches, 0.999)!.Value, 2);
        Assert.Null(StudentT.MarginOfError([1.0], 0.999));
    }

    [Theory]
    [InlineData("500ms", 0.5)]
    [InlineData("30s", 30)]
    [InlineData("2m", 120)]
    [InlineData("1h", 3600)]
    [InlineData("1.5s", 1.5)]
    [InlineData("7", 7)]
    public void TryParse_WrkStyleDuration_ReadsSeconds(string text, double seconds)
    {
        Assert.True(DurationText.TryParse(text, out var value));
        Assert.Equal(seconds, value.TotalSeconds, 6);
    }

    [Theory]
    [InlineData("")]
    [InlineData("fast")]
    [InlineData("10x")]
    [InlineData("s")]
    public void TryParse_Garbage_Fails(string text) => Assert.False(DurationText.TryParse(text, out _));
}
