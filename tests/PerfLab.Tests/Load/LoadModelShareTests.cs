using PerfLab.Common;
using PerfLab.Hosts;
using PerfLab.Load;

namespace PerfLab.Tests.Load;

/// <summary>Each load model divides itself between N generators so that together they send exactly its load.</summary>
public sealed class LoadModelShareTests
{
    [Fact]
    public void ShareOf_ClosedTenUsersOverThree_FirstTakesTheRemainder()
    {
        var whole = new ClosedModel(10);

        var parts = Enumerable.Range(0, 3).Select(i => Assert.IsType<ClosedModel>(whole.ShareOf(i, 3)).Users).ToList();

        Assert.Equal([4, 3, 3], parts);
    }

    [Fact]
    public void ShareOf_OpenAt300OverThree_UnionOfTheSchedulesIsTheWholeSchedule()
    {
        var whole = new OpenModel(300, 64);

        // Generator i sends its k-th request at its delay + k / its rate; together: request j at j / 300 s.
        var union = Enumerable.Range(0, 3).SelectMany(i =>
        {
            var part = Assert.IsType<OpenModel>(whole.ShareOf(i, 3));
            Assert.Equal(100, part.Rate);
            Assert.Equal(22, part.MaxInFlight);
            return Enumerable.Range(0, 100).Select(k => whole.ShareDelay(i, 3).TotalSeconds + (k / part.Rate));
        }).Order().ToList();

        Assert.Equal(300, union.Count);
        // A TimeSpan holds 100 ns ticks: the delays are exact to 1e-7 s.
        Assert.All(union.Select((t, j) => (t, j)), p => Assert.Equal(p.j / 300.0, p.t, 6));
    }

    [Fact]
    public void ShareOf_RampOfMultiplesOfN_EveryStepAddsUpToTheWhole()
    {
        var whole = new RampModel(StartUsers: 6, Step: 3, StepEvery: TimeSpan.FromSeconds(1), MaxUsers: 30);

        var parts = Enumerable.Range(0, 3).Select(i => Assert.IsType<RampModel>(whole.ShareOf(i, 3))).ToList();

        Assert.All(parts, p => Assert.Equal(whole.StepCount, p.StepCount));
        Assert.All(Enumerable.Range(0, whole.StepCount), s => Assert.Equal(whole.UsersAtStep(s), parts.Sum(p => p.UsersAtStep(s))));
    }

    [Fact]
    public void ShareOf_BurstOfTwoOverThree_UsageErrorAskingForMore()
    {
        var ex = Assert.Throws<PerfLabException>(() => new BurstModel(2, 5).ShareOf(0, 3));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Equal("burst size 2 cannot be divided between 3 generators: give at least 3.", ex.Message);
    }

    [Fact]
    public void Apply_UploadScenario_UsageErrorNamingScenarioAndModel()
    {
        var plan = new LoadPlan([new ScenarioPlan("big", new UploadModel(1 << 20, TimeSpan.Zero), new RequestFeed("http://127.0.0.1:1/"))],
            TimeSpan.FromSeconds(1), TimeSpan.Zero, TimeSpan.FromSeconds(1));

        var ex = Assert.Throws<PerfLabException>(() => new LoadShare(1, 2).Apply(plan));

        Assert.Equal("big: the upload model cannot be shared between generators.", ex.Message);
    }

    [Fact]
    public void Phase_OpenScenario_IndexOverTheRate()
    {
        var plan = new LoadPlan([new ScenarioPlan("o", new OpenModel(200, 8), new RequestFeed("http://127.0.0.1:1/"))],
            TimeSpan.FromSeconds(1), TimeSpan.Zero, TimeSpan.FromSeconds(1));

        Assert.Equal(15, new LoadShare(3, 4).Phase(plan).TotalMilliseconds, 3);
        Assert.Equal(TimeSpan.Zero, new LoadShare(0, 4).Phase(plan));
    }
}
