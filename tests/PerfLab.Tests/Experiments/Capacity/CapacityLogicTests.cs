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

    [Fact]
    public async Task RunAsync_KnownCapacity200_ConfirmsTheBoundaryAndGivesAnIntervalHoldingIt()
    {
        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(50, 100_000), Settings, Target(200), null, CancellationToken.None);

        // 50, 100, 200 hold, 400 breaks; bisection to 206.25; then 200 and 206.25 tried again, back to back, agreeing.
        Assert.Equal(["confirm", "confirm"], result.Steps.TakeLast(2).Select(s => s.Phase));
        Assert.Equal([200, 206.25], result.Steps.TakeLast(2).Select(s => s.TargetRps));
        Assert.Equal((200, 200, 206.25), (result.CapacityLowRps, result.CapacityRps, result.CapacityHighRps));
        Assert.Contains("Capacity interval [200, 206.3] RPS: the boundary held and broke again back to back.", result.Summary);
    }

    [Fact]
    public async Task RunAsync_StallBreaksTheConfirmingTry_BisectsAgainBelowTheRateThatDisagreed()
    {
        var target = Target(200);
        // One stall on a machine that was not busy: the first confirming try of 200 RPS breaks.
        CapacitySearch.Probe stalled = async (index, phase, rate, ct) => phase == "confirm" && index == 10
            ? (await target(index, phase, rate, ct)) with { Holds = false, Reason = "stalled" }
            : await target(index, phase, rate, ct);

        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(50, 100_000), Settings, stalled, null, CancellationToken.None);

        // 200 held once and broke once: neither end. The boundary widened to 100 (always held) and 206.25 (always broke),
        // wider than 5 %: bisected again between them, not left at the last doubling; then the new boundary tried again.
        Assert.Equal([200, 206.25, 199.609375, 206.25], result.Steps.Where(s => s.Phase == "confirm").Select(s => s.TargetRps));
        Assert.Equal([153.125, 179.6875, 192.96875, 199.609375],
            result.Steps.Where(s => s.Phase == "bisect" && s.Index > 10).Select(s => s.TargetRps));
        Assert.Equal((199.609375, 206.25), (result.CapacityLowRps, result.CapacityHighRps));
        Assert.InRange(200, result.CapacityLowRps!.Value, result.CapacityHighRps!.Value);
    }

    [Fact]
    public async Task RunAsync_BusyStallBreaksTheConfirmingTry_KeepsTheRateThatHeld()
    {
        var target = Target(200);
        // The same stall as above on a busy machine: the rate held before, and a busy machine explains the break.
        CapacitySearch.Probe stalled = async (index, phase, rate, ct) => phase == "confirm" && index == 10
            ? (await target(index, phase, rate, ct)) with { Holds = false, Reason = "stalled", MachineLoad = 10 * Environment.ProcessorCount }
            : await target(index, phase, rate, ct);

        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(50, 100_000), Settings, stalled, null, CancellationToken.None);

        // 200 held, broke busy, then held and 206.25 broke again back to back: the interval keeps 200 as its lower end.
        Assert.Equal([200, 206.25, 200, 206.25], result.Steps.Where(s => s.Phase == "confirm").Select(s => s.TargetRps));
        Assert.Equal((200, 200, 206.25), (result.CapacityLowRps, result.CapacityRps, result.CapacityHighRps));
    }

    [Fact]
    public async Task RunAsync_BisectingStepBreaksOnABusyMachine_TriesItOnceMoreBeforeMovingTheBracket()
    {
        var target = Target(190);
        // The first bisecting try of each rate within the capacity breaks on a busy machine; its next try holds.
        CapacitySearch.Probe stalled = async (index, phase, rate, ct) => phase == "bisect" && rate <= 190
            ? (await target(index, phase, rate, ct)) with { Holds = false, Reason = "stalled", MachineLoad = 10 * Environment.ProcessorCount }
            : await target(index, phase, rate, ct);

        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(50, 100_000), Settings, stalled, null, CancellationToken.None);

        Assert.Contains(result.Steps, s => s.Phase == "repeat");
        Assert.All(result.Steps.Where(s => s.Phase == "repeat"),
            r => Assert.Equal(r.TargetRps, result.Steps.Single(s => s.Index == r.Index - 1).TargetRps));
        // 50 and 100 held, 200 broke; 150, 175 and 187.5 each broke busy, then held; 193.75 broke.
        Assert.Equal([150, 175, 187.5], result.Steps.Where(s => s.Phase == "repeat").Select(s => s.TargetRps));
        Assert.Equal((187.5, 193.75), (result.CapacityRps, result.BreaksAtRps));
    }

    [Fact]
    public async Task RunAsync_RisingStepBreaksOnceOnABusyMachine_TriesItAgainAndRisesOn()
    {
        var target = Target(200);
        var stalled = false;
        // 100 RPS breaks on its first try on a busy machine (a stall), then holds.
        CapacitySearch.Probe busy = async (index, phase, rate, ct) => rate == 100 && !stalled && (stalled = true)
            ? (await target(index, phase, rate, ct)) with { Holds = false, Reason = "stalled", MachineLoad = 10 * Environment.ProcessorCount }
            : await target(index, phase, rate, ct);

        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(50, 100_000), Settings, busy, null, CancellationToken.None);

        Assert.Equal([("step", 50.0), ("step", 100), ("repeat", 100), ("step", 200), ("step", 400)],
            result.Steps.Take(5).Select(s => (s.Phase, s.TargetRps)));
        Assert.Equal((200, 206.25), (result.CapacityRps, result.BreaksAtRps));
    }

    [Fact]
    public async Task RunAsync_BusyBreaksBelowTheCapacityThatLaterHold_RisesOnInsteadOfAnsweringThem()
    {
        var target = Target(200);
        // Both rising tries of 100 RPS break on a busy machine; it holds when confirmed, and nothing above it broke yet.
        CapacitySearch.Probe busy = async (index, phase, rate, ct) => rate == 100 && phase is "step" or "repeat"
            ? (await target(index, phase, rate, ct)) with { Holds = false, Reason = "stalled", MachineLoad = 10 * Environment.ProcessorCount }
            : await target(index, phase, rate, ct);

        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(50, 100_000), Settings, busy, null, CancellationToken.None);

        // Not "holds at 100 RPS, breaks at 100": the search rose on from 100 once it held, and found the capacity above.
        Assert.Equal(CapacityOutcome.Found, result.Outcome);
        Assert.Equal((200, 206.25), (result.CapacityRps, result.BreaksAtRps));
        Assert.Contains(result.Steps, s => s.Phase == "step" && s.TargetRps == 200);
    }

    [Fact]
    public void Interval_RateHeldAndBrokeOnlyOnABusyMachine_IsItsLowerEnd()
    {
        var busy = 10.0 * Environment.ProcessorCount;
        IReadOnlyList<CapacityStep> steps = [Step(1, 100, true), Step(2, 190, true) with { CompletedRps = 188 },
            Step(3, 200, false), Step(4, 190, false) with { CompletedRps = 120, MachineLoad = busy }, Step(5, 190, true),
            Step(6, 200, false)];

        // 190's busy break is left out, its lowest holding try is the lower end; 200 broke twice, right after 190 held.
        Assert.Equal((188, 200), CapacityBoundary.Interval(steps));
    }

    [Fact]
    public async Task RunAsync_BreaksOnABusyMachine_LeavesTheIntervalOpenAboveInsteadOfLoweringIt()
    {
        var target = Target(200);
        // Every step that breaks does so on a busy machine: not evidence about the target, so no upper end.
        CapacitySearch.Probe busy = async (index, phase, rate, ct) => await target(index, phase, rate, ct) is var step && !step.Holds
            ? step with { MachineLoad = 10 * Environment.ProcessorCount }
            : step;

        var result = await CapacitySearch.RunAsync("u", Slo, new CapacityRange(50, 100_000), Settings, busy, null, CancellationToken.None);

        Assert.Equal(200, result.CapacityLowRps);
        Assert.Null(result.CapacityHighRps);
        Assert.Contains("Capacity interval [200 RPS, open above): open above", result.Summary);
    }

    [Fact]
    public void Interval_EveryRateBrokeOnce_RunsFromZeroToTheRateThatAlwaysBroke()
    {
        // A stall broke the first try of 100; 100 then held, 200 broke twice, the second time right after 100 held.
        IReadOnlyList<CapacityStep> steps = [Step(1, 100, false), Step(2, 100, true), Step(3, 200, false), Step(4, 100, true),
            Step(5, 200, false)];

        Assert.Equal((0, 200), CapacityBoundary.Interval(steps));
    }

    private static CapacityStep Step(int index, double rate, bool holds) =>
        new(index, "step", rate, rate, rate, (long)rate, holds ? 30 : 900, 20, 30, 0, 0, false, false, false, holds, "");

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
