using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using PerfLab.Experiments.Running.Warmup;

namespace PerfLab.Tests.Experiments.Running;

public sealed class JitActivityTests
{
    private const long Start = 1_700_000_000_000;   // a whole second, in Unix ms

    private static void Compile(JitActivity jit, int second, int count, OptimizationTier tier)
    {
        for (var i = 0; i < count; i++)
        {
            jit.OnCompiled(Start + second * 1000 + i % 1000, tier);
        }
    }

    [Fact]
    public void Settled_PromotionWaveThenTrickle_TrueOnceTwoWholeSecondsStayUnderOnePercent()
    {
        var jit = new JitActivity(Start);
        Compile(jit, 0, 3000, OptimizationTier.QuickJitted);
        Compile(jit, 1, 2000, OptimizationTier.QuickJitted);
        Compile(jit, 1, 900, OptimizationTier.OptimizedTier1Instrumented);
        Compile(jit, 2, 700, OptimizationTier.OptimizedTier1);
        Compile(jit, 3, 40, OptimizationTier.OptimizedTier1);     // 40 <= 1 % of 6600 compiled before
        Compile(jit, 4, 30, OptimizationTier.QuickJitted);
        Compile(jit, 4, 6, OptimizationTier.OptimizedTier1OSR);

        Assert.False(jit.Settled(Start + 3600));   // seconds 1-2 complete: the wave
        Assert.False(jit.Settled(Start + 4600));   // seconds 2-3: 700 is over 1 %
        Assert.True(jit.Settled(Start + 5600));    // seconds 3-4: 40 and 36, both under 66
        jit.OnBackground(-1);                       // the tier-1 worker started a batch
        Assert.False(jit.Settled(Start + 5700));
        jit.OnBackground(120);                      // ... and stopped with 120 methods still queued (allowed: 66)
        Assert.False(jit.Settled(Start + 5800));
        jit.OnBackground(12);
        Assert.True(jit.Settled(Start + 5900));
    }

    [Fact]
    public void Summarize_KnownCompiles_CountsEachTierInWarmupAndWindowAndWhenItSettled()
    {
        var jit = new JitActivity(Start);
        Compile(jit, 0, 500, OptimizationTier.QuickJitted);
        Compile(jit, 1, 200, OptimizationTier.OptimizedTier1);
        Compile(jit, 1, 50, OptimizationTier.ReadyToRun);          // precompiled: nothing compiled
        Compile(jit, 2, 3, OptimizationTier.OptimizedTier1OSR);
        Assert.True(jit.Settled(Start + 5600));                     // seconds 3-4: nothing
        Compile(jit, 6, 8, OptimizationTier.OptimizedTier1);        // inside the window [5 s, 9 s]
        Compile(jit, 7, 4, OptimizationTier.QuickJitted);

        var record = jit.Summarize(DateTimeOffset.FromUnixTimeMilliseconds(Start + 5000),
            [(DateTimeOffset.FromUnixTimeMilliseconds(Start + 5000), DateTimeOffset.FromUnixTimeMilliseconds(Start + 9000))]);

        Assert.Equal((500, 200, 3), (record.WarmupFirstCompiles, record.WarmupPromotions, record.WarmupOsr));
        Assert.Equal(3.0, record.WindowCompilesPerSecond);          // 12 compiles in 4 s
        Assert.Equal(2.0, record.WindowPromotionsPerSecond);        // 8 promotions in 4 s
        Assert.Equal(5.6, record.SettledAfterSeconds);
        Assert.Equal(10, record.Seconds.Count);
        Assert.Equal([0, 200, 0], record.Seconds[1]);
    }

    [Fact]
    public void Settled_WarmingUpStartsLater_ReadsOnlyItsOwnSecondsAndCountsTheRestAsBefore()
    {
        var jit = new JitActivity(Start);
        Compile(jit, 0, 4000, OptimizationTier.QuickJitted);       // another SUT's warm-up time: this one idle after its start
        jit.WarmingUp(Start + 5000);
        Assert.False(jit.Settled(Start + 6600));                    // no whole second of its own warm-up yet
        Compile(jit, 6, 30, OptimizationTier.OptimizedTier1);
        Compile(jit, 7, 30, OptimizationTier.OptimizedTier1);
        Assert.True(jit.Settled(Start + 8600));                     // 30 <= 1 % of 4000
    }

    [Fact]
    public void PulseSettled_KnownPulses_CountsEveryCompileButReadyToRunAndKeepsTheFirstSettledTime()
    {
        var jit = new JitActivity(Start);
        jit.WarmingUp(Start);
        Compile(jit, 0, 9000, OptimizationTier.QuickJitted);
        Compile(jit, 0, 500, OptimizationTier.ReadyToRun);          // precompiled: nothing compiled
        Assert.Equal((9000L, true), jit.Progress());                 // the worker has not run yet

        jit.OnBackground(-1);
        Compile(jit, 2, 1500, OptimizationTier.OptimizedTier1Instrumented);
        Assert.Equal((10_500L, false), jit.Progress());
        Assert.False(jit.PulseSettled(9000, pulseSeconds: 2, Start + 3000));   // 1,500 over 2 × 90

        jit.OnBackground(0);
        Compile(jit, 5, 180, OptimizationTier.OptimizedTier1);
        Assert.True(jit.PulseSettled(10_500, pulseSeconds: 2, Start + 6000));  // 180 within 2 × 105
        Assert.True(jit.PulseSettled(10_680, pulseSeconds: 2, Start + 9000));   // nothing since

        var record = jit.Summarize(DateTimeOffset.FromUnixTimeMilliseconds(Start + 9000), []);
        Assert.Equal(6.0, record.SettledAfterSeconds);
        Assert.Equal(TieringRule.PulseDescription, record.Rule);
    }
}
