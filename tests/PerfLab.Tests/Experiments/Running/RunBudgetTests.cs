using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;

namespace PerfLab.Tests.Experiments.Running;

public sealed class RunBudgetTests
{
    private static readonly ExperimentDefinition _experiment =
        ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).First(e => e.Name == "gc");

    private static ExperimentProgress Progress(double widest, double target, int blocks, int secondsPerBlock, bool stopped = false) =>
        new(_experiment, new StoppingRule(3, 20, target))
        {
            Widest = widest,
            Blocks = blocks,
            Spent = TimeSpan.FromSeconds(secondsPerBlock * blocks),
            Decision = stopped ? new StopDecision(true, "precision reached") : StopDecision.Later,
        };

    [Fact]
    public void Next_SeveralShortOfTarget_TheFurthestFromItsTargetGoesFirst()
    {
        var near = Progress(widest: 6, target: 5, blocks: 3, secondsPerBlock: 50);
        var far = Progress(widest: 18, target: 10, blocks: 3, secondsPerBlock: 60);
        var done = Progress(widest: 40, target: 5, blocks: 3, secondsPerBlock: 50, stopped: true);

        Assert.Same(far, RunBudget.Next([near, far, done], TimeSpan.FromMinutes(20), TimeSpan.FromMinutes(10)));
    }

    [Fact]
    public void Next_NeediestBlockDoesNotFit_ANeedyOneThatFitsGetsTheTime()
    {
        var shortBlocks = Progress(widest: 7, target: 5, blocks: 3, secondsPerBlock: 50);
        var longBlocks = Progress(widest: 20, target: 5, blocks: 3, secondsPerBlock: 90);

        // 60 s left: a 90 s block would end past the budget, a 50 s one within it.
        Assert.Same(shortBlocks, RunBudget.Next([shortBlocks, longBlocks], TimeSpan.FromSeconds(600), TimeSpan.FromSeconds(540)));
        Assert.Null(RunBudget.Next([shortBlocks, longBlocks], TimeSpan.FromSeconds(600), TimeSpan.FromSeconds(551)));
    }

    [Fact]
    public void Next_NoBudget_AddsUntilEveryTargetIsMet()
    {
        var open = Progress(widest: 7, target: 5, blocks: 12, secondsPerBlock: 600);

        Assert.Same(open, RunBudget.Next([open], total: null, TimeSpan.FromHours(3)));
        Assert.Null(RunBudget.Next([Progress(7, 5, 3, 60, stopped: true)], total: null, TimeSpan.Zero));
    }
}
