using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;

namespace PerfLab.Tests.Experiments;

/// <summary>Which points of a sweep are traced: the highest value's alone, so a sweep costs a plain experiment's traces.</summary>
public sealed class SweepTracingTests
{
    private static readonly IReadOnlyList<ExperimentDefinition> _all = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder);

    [Theory]
    [InlineData("sync-async-scaling", 32.0)]   // users 1, 4, 16, 32: the most users in flight
    [InlineData("sync-async-rtt", 5.0)]        // database RTT 0-5 ms: the longest waits
    public void Points_ShippedSweep_OnlyTheHighestValueIsTraced(string name, double highest)
    {
        var sweep = _all.Single(e => e.Name == name);

        var points = SweepDefinition.Points(sweep);

        Assert.Equal(highest, sweep.Sweep!.TracedValue);
        Assert.Equal(sweep.Sweep.Values.Select(v => v == highest), points.Select(p => p.Traced));
        Assert.Equal(highest, Assert.Single(points, p => p.Traced).Point!.Value);
    }

    [Fact]
    public void Points_PlainExperiment_StaysTraced()
    {
        var plain = _all.First(e => e.Sweep is null);

        Assert.True(Assert.Single(SweepDefinition.Points(plain)).Traced);
    }

    [Fact]
    public void Minimum_UntracedPoint_PlansNoTraceTime()
    {
        // The budget plans what will run: a trace's 7 s per variant at the traced point only.
        var points = SweepDefinition.Points(_all.Single(e => e.Name == "sync-async-scaling"));
        var profile = points[0].Profiles[ProfileName.Quick];

        var untraced = RunOpening.Minimum(points[0], profile, (3, 2), traced: true);
        var traced = RunOpening.Minimum(points[^1], profile, (3, 2), traced: true);
        var off = RunOpening.Minimum(points[^1], profile, (3, 2), traced: false);

        Assert.Equal(2 * RunOpening.TraceSeconds, traced.Seconds - untraced.Seconds, 6);
        Assert.Equal(off.Seconds, untraced.Seconds, 6);
    }
}
