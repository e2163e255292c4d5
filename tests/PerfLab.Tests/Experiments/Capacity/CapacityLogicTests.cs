using PerfLab.Experiments.Definitions;
using PerfLab.Load;
using PerfLab.Results;
using PerfLab.Experiments.Running.Warmup;
using PerfLab.Experiments.Running.Capacity;

namespace PerfLab.Tests.Experiments.Capacity;

/// <summary>The search's stepping and bisection, and the trend rule, on targets whose answer is known exactly.</summary>
public sealed class CapacityLogicTests
{
    private static readonly CapacitySlo Slo = CapacitySlo.Parse("p99<100ms", null);
    private static readonly CapacityStepSettings Settings = new(TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(2));

    /// <summary>A target that holds up to <paramref name="capacity"/> RPS, driven by a generator that sends at most <paramref name="generatorMax"/>.</summary>
    private static CapacitySearch.Probe Target(double capacity, double generatorMax = double.MaxValue) => (index, phase, rate, _) =>
    {
        var sent = Math.Min(rate, generatorMax);
        var holds = rate <= capacity;
        var limited = sent < rate * CapacityStepSettings.MinSentShare;
        return Task.FromResult(new CapacityStep(index, phase, rate, sent, Math.Min(sent, capacity), (long)(sent * 10), holds ? 30 : 900, 20, holds ? 30 : 900,
            0, 0, false, limited, false, holds && !limited, holds && !limited ? "holds" : "breaks"));
    };

    [Theory]
    [InlineData(200)]
    [InlineData(1_940)]
    [InlineData(51)]
    public async Task RunAsync_KnownCapacity_BracketsItWithinFivePercent(double capacity)
    {
        var result = await CapacitySearch.RunAsync("http://127.0.0.1/", Slo, new CapacityRange(50, 100_000), Settings, Target(capacity), null, CancellationToken.None);

        Assert.Equal(CapacityOutcome.Found, result.Outcome);
        Assert.InRange(result.CapacityRps!.Value, capacity / 1.05, capacity);
        Assert.InRange(result.BreaksAtRps!.Value, capacity, capacity * 1.05);
        Assert.True(result.BracketPercent <= 5, $"bracket {result.BracketPercent} %");
        // Rising steps double: 50, 100, 200 ... until the first that breaks.
        var rising = result.Steps.Where(s => s.Phase == "step").Select(s => s.TargetRps).ToList();
        Assert.Equal(Enumerable.Range(0, rising.Count).Select(i => 50 * Math.Pow(2, i)), rising);
        Assert.Contains($"holds at {result.CapacityRps:N0} RPS", result.Summary);
    }

    [Fact]
    public async Task RunAsync_EveryRateUpToMaxHolds_SaysTheCapacityMayBeHigher()
    {
        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(100, 300), Settings, Target(10_000), null, CancellationToken.None);

        Assert.Equal(CapacityOutcome.AboveMax, result.Outcome);
        Assert.Equal([100, 200, 300], result.Steps.Select(s => s.TargetRps));
        Assert.Equal(300, result.CapacityRps);
        Assert.Null(result.BreaksAtRps);
    }

    [Fact]
    public async Task RunAsync_GeneratorSendsAtMost500_StopsAndCreditsOnlyWhatHeld()
    {
        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(100, 100_000), Settings, Target(10_000, generatorMax: 500), null, CancellationToken.None);

        Assert.Equal(CapacityOutcome.GeneratorLimit, result.Outcome);
        Assert.Equal(400, result.CapacityRps);   // 100, 200, 400 held; 800 could not be sent
        Assert.Equal(4, result.Steps.Count);
        Assert.Contains("the generator was the limit at 800 RPS", result.Summary);
    }

    [Fact]
    public async Task RunAsync_FirstStepBreaksTwice_StopsAfterTheRepeat()
    {
        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(100, 100_000), Settings, Target(10), null, CancellationToken.None);

        Assert.Equal(CapacityOutcome.BelowFrom, result.Outcome);
        Assert.Equal(["step", "repeat"], result.Steps.Select(s => s.Phase));
        Assert.All(result.Steps, s => Assert.Equal(100, s.TargetRps));
        Assert.Null(result.CapacityRps);
    }

    private static LoadSecond Second(long t, double p50) => new(t, false, 200, 200, p50, p50 * 2, 0, 4);

    [Fact]
    public void LatencyTrend_QueueGrowing25msASecond_IsUpward()
    {
        IReadOnlyList<LoadSecond> timeline = [new(0, true, 200, 200, 20, 30, 0, 4), Second(1, 30), Second(2, 55), Second(3, 80), Second(4, 105)];

        Assert.Equal(75, LatencyTrend.RiseMs(timeline), 6);
        Assert.True(LatencyTrend.IsUpward(timeline, limitMs: 100));
    }

    [Fact]
    public void LatencyTrend_FlatWithNoise_IsNotUpward()
    {
        IReadOnlyList<LoadSecond> timeline = [Second(1, 21), Second(2, 24), Second(3, 20), Second(4, 26), Second(5, 22)];

        Assert.InRange(LatencyTrend.RiseMs(timeline), -5, 5);
        Assert.False(LatencyTrend.IsUpward(timeline, limitMs: 100));
    }
}
