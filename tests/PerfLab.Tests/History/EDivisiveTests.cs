using PerfLab.History;

namespace PerfLab.Tests.History;

public sealed class EDivisiveTests
{
    private static readonly EDivisive.Options Options = new();

    [Fact]
    public void Best_StepInTheMiddle_SplitsAtTheStep()
    {
        double[] x = [1, 1.1, 0.9, 1, 1.05, 0.95, 2, 2.1, 1.9, 2, 2.05];

        var (index, q) = EDivisive.Best(x, minSegment: 3);

        Assert.Equal(6, index);
        Assert.True(q > 0);
    }

    [Fact]
    public void Best_TooShortForTwoSegments_NoSplit() =>
        Assert.Equal(0, EDivisive.Best([1, 2, 3, 4, 5], minSegment: 3).Index);

    [Fact]
    public void Find_TwoSteps_FindsBothInOrder_AndTheSameOnEveryCall()
    {
        var x = Enumerable.Range(0, 36).Select(i => (i < 12 ? 10 : i < 24 ? 12 : 9) + (i % 3 * 0.1)).ToList();

        var first = EDivisive.Find(x, Options);
        var second = EDivisive.Find(x, Options);

        Assert.Equal([12, 24], first.Select(s => s.Index));
        Assert.All(first, s => Assert.True(s.PValue <= 0.05));
        Assert.Equal(first, second);
    }

    [Fact]
    public void Find_NoiseWithoutStep_NoChangePoint()
    {
        var random = new Random(3);
        var x = Enumerable.Range(0, 30).Select(_ => 100 + random.NextDouble()).ToList();

        Assert.Empty(EDivisive.Find(x, Options));
    }

    [Fact]
    public void Find_AcceptVetoes_NoChangePoint()
    {
        var x = Enumerable.Range(0, 20).Select(i => i < 10 ? 1.0 + (i % 2 * 0.01) : 2.0).ToList();

        Assert.Single(EDivisive.Find(x, Options));
        Assert.Empty(EDivisive.Find(x, Options, (_, _, _) => false));
    }

    [Fact]
    public void PValueAt_SeparatedGroups_Small_AndMixedGroups_Large()
    {
        Assert.True(EDivisive.PValueAt([1, 1.1, 0.9, 1, 5, 5.1, 4.9, 5], 4, Options) < 0.05);
        Assert.True(EDivisive.PValueAt([1, 5, 1.1, 5.1, 0.9, 4.9, 1, 5], 4, Options) > 0.2);
    }
}
