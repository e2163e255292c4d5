using PerfLab.Counters;
using PerfLab.Experiments.Running;

namespace PerfLab.Tests.Experiments.Running;

public sealed class JitActivityTests
{
    private static CounterSample Sample(long second, double? methods) => new(second,
        methods is { } m ? new Dictionary<string, double> { [CounterNames.MethodsJitted] = m, ["cpu-usage"] = 50 }
            : new Dictionary<string, double> { ["cpu-usage"] = 50 });

    [Fact]
    public void Settled_TieringStillCompiling_FalseUntilTwoQuietSeconds()
    {
        var jit = new JitActivity();
        jit.Report(Sample(1, 400));
        Assert.False(jit.Settled);
        jit.Report(Sample(2, 3));
        Assert.False(jit.Settled);   // one quiet second after a busy one
        jit.Report(Sample(3, 0));
        Assert.True(jit.Settled);
        jit.Report(Sample(4, 60));   // a late burst of tier-1 recompiles
        Assert.False(jit.Settled);
    }

    [Fact]
    public void Settled_NoJitFigureArrives_NeverSettled()
    {
        var jit = new JitActivity();
        Assert.False(jit.Settled);
        jit.Report(Sample(1, null));
        jit.Report(Sample(2, null));
        Assert.False(jit.Settled);
    }
}
