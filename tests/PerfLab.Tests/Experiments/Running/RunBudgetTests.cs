using PerfLab.Experiments.Definitions;
using PerfLab.Experiments.Running;
using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments.Running;

public sealed class RunBudgetTests
{
    private static readonly ExperimentDefinition _experiment =
        ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).First(e => e.Name == "gc");

    private readonly Dictionary<ExperimentProgress, TimeSpan> _blocks = [];

    private ExperimentProgress Progress(double widest, double target, int secondsPerBlock, bool stopped = false)
    {
        var progress = new ExperimentProgress(_experiment, new StoppingRule(3, 20, target))
        {
            Widest = widest,
            Blocks = 3,
            Decision = stopped ? new StopDecision(StopKind.PrecisionReached, "precision reached") : StopDecision.Later,
        };
        _blocks[progress] = TimeSpan.FromSeconds(secondsPerBlock);
        return progress;
    }

    private TimeSpan NextBlock(ExperimentProgress progress) => _blocks[progress];

    [Fact]
    public void Next_SeveralShortOfTarget_TheOneThatReachesItsTargetForTheFewestSecondsGoesFirst()
    {
        // After 3 blocks a half-width scales by t(n-1)/√n: a fourth block takes ±6 % to ±3.8 % (one 50 s block reaches
        // 5 %), a fifth takes ±18 % to ±9.0 % (two 60 s blocks reach 10 %); ±24 % against 5 % needs 17 blocks in all
        // (14 more of 40 s). The quiet default run of 2026-11-29 had logging at ±7.5 % and serializer at ±5.9 % after 3 blocks
        // and sync-async at ±20.6 %; furthest first gave sync-async every block.
        var near = Progress(widest: 6, target: 5, secondsPerBlock: 50);
        var far = Progress(widest: 18, target: 10, secondsPerBlock: 60);
        var farthest = Progress(widest: 24, target: 5, secondsPerBlock: 40);
        var done = Progress(widest: 40, target: 5, secondsPerBlock: 50, stopped: true);

        Assert.Equal((4, 5, 17), (near.BlocksToTarget, far.BlocksToTarget, farthest.BlocksToTarget));
        Assert.Same(near, RunBudget.Next([farthest, far, near, done], TimeSpan.FromMinutes(20), TimeSpan.FromMinutes(10), NextBlock));
        Assert.Same(far, RunBudget.Next([farthest, far, done], TimeSpan.FromMinutes(20), TimeSpan.FromMinutes(10), NextBlock));
    }

    [Fact]
    public void Next_NoTargetWithinReachOfWhatIsLeft_TheFurthestFromItsTargetGoesFirst()
    {
        // 100 s left: ±18 % against 10 % needs two 60 s blocks, ±24 % against 5 % fourteen of 40 s; neither reaches its
        // target in time, so the widest over its target gets the block. ±60 % against 5 % is beyond 20 blocks.
        var far = Progress(widest: 18, target: 10, secondsPerBlock: 60);
        var farthest = Progress(widest: 24, target: 5, secondsPerBlock: 40);
        var hopeless = Progress(widest: 60, target: 5, secondsPerBlock: 40);

        Assert.Null(hopeless.BlocksToTarget);
        Assert.Same(farthest, RunBudget.Next([far, farthest], TimeSpan.FromSeconds(600), TimeSpan.FromSeconds(500), NextBlock));
        Assert.Same(hopeless, RunBudget.Next([far, farthest, hopeless], TimeSpan.FromSeconds(600), TimeSpan.FromSeconds(500), NextBlock));
    }

    [Fact]
    public void Next_NeediestBlockDoesNotFit_ANeedyOneThatFitsGetsTheTime()
    {
        var shortBlocks = Progress(widest: 7, target: 5, secondsPerBlock: 50);
        var longBlocks = Progress(widest: 20, target: 5, secondsPerBlock: 90);

        // 60 s left: a 90 s block would end past the budget, a 50 s one within it.
        Assert.Same(shortBlocks, RunBudget.Next([shortBlocks, longBlocks], TimeSpan.FromSeconds(600), TimeSpan.FromSeconds(540), NextBlock));
        Assert.Null(RunBudget.Next([shortBlocks, longBlocks], TimeSpan.FromSeconds(600), TimeSpan.FromSeconds(551), NextBlock));
    }

    [Fact]
    public void Next_NoBudget_AddsUntilEveryTargetIsMet()
    {
        var open = Progress(widest: 7, target: 5, secondsPerBlock: 600);

        Assert.Same(open, RunBudget.Next([open], total: null, TimeSpan.FromHours(3), NextBlock));
        Assert.Null(RunBudget.Next([Progress(7, 5, 60, stopped: true)], total: null, TimeSpan.Zero, NextBlock));
    }

    [Fact]
    public void EstimateBlockSeconds_AfterRuns_IsEveryVariantOnceAtItsMeasuredRunTime()
    {
        var plan = new RunPlan([new PlannedExperiment("gc", PlannedRunSeconds: 21, Variants: 3, Blocks: 3)]);
        foreach (var seconds in new[] { 16.0, 18, 20 })
        {
            plan.Observe("gc", 1, seconds);
        }

        Assert.Equal(54, plan.EstimateBlockSeconds("gc"), 9);
    }

    [Fact]
    public void EstimateBlockSeconds_AfterATracedFirstBlock_IsTheBlocksAfterIt()
    {
        // The default run of 2026-11-29 18:29: gc's first block, traced, took 62 s, the next two 41 and 39 s; the
        // budget's next block is untraced, and 47 s for it would refuse a block the 40 s left could hold.
        var plan = new RunPlan([new PlannedExperiment("gc", PlannedRunSeconds: 13, Variants: 3, Blocks: 3)]);
        foreach (var (block, seconds) in new[] { (1, 62.0), (2, 41), (3, 39) })
        {
            for (var variant = 0; variant < 3; variant++)
            {
                plan.Observe("gc", block, seconds / 3);
            }
        }

        Assert.Equal(40, plan.EstimateBlockSeconds("gc"), 9);
    }

    [Fact]
    public void FitBudget_TheDefaultSuiteOnTheQuickProfile_StartsWithinTwentyMinutes()
    {
        // The quick start's own run: every default experiment (sweeps run as their points) at its minimum blocks. The
        // counted ones (sleep-vs-delay's batches, http2-window's uploads) have only a cap for a duration; taking the cap
        // as their length refused this run outright.
        var experiments = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).Where(e => e.RunsByDefault)
            .SelectMany(SweepDefinition.Points).ToList();
        var changes = new List<string>();

        var fitted = RunOpening.FitBudget(experiments, ProfileName.Quick, TimeSpan.FromMinutes(20), TimeSpan.Zero, traced: true,
            e => (e.Profiles[ProfileName.Quick].Repeat, e.VariantsToRun(false).Count), changes);

        Assert.Equal(experiments.Select(e => e.Name), fitted.Experiments.Select(e => e.Name));
        Assert.True(fitted.Fits);
        Assert.Contains(experiments, e => e.Scenarios.Any(s => s.Model.CountsBatches));
    }

    [Fact]
    public void FitBudget_TimedMinimumOverTheBudget_RefusedWithWhatWouldFit()
    {
        var gc = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder).First(e => e.Name == "gc");

        var ex = Assert.Throws<PerfLab.Common.PerfLabException>(() =>
            RunOpening.FitBudget([gc], ProfileName.Quick, TimeSpan.FromSeconds(45), TimeSpan.Zero, traced: true, _ => (3, 3), []));

        Assert.Contains("raise --budget to", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void FitBudget_FrameworkBesideTheFourAdaptiveExperiments_ItsTieredWarmupKeptWhole()
    {
        // `perflab run serializer gc sync-async logging framework` in 20 minutes: the budget once cut framework's 25 s
        // warm-up to 5 s with the others', and its three runtimes were measured still tiering (38 % half-width after 6
        // blocks, docs/benchmarks/framework.md "framework beside the default run's four adaptive experiments"). Since
        // the others warm their variants up at once their minimum fits 20 minutes whole; 15 minutes cuts again.
        var all = ExperimentLoader.LoadFolder(ExperimentLoader.DefaultFolder);
        var experiments = new[] { "serializer", "gc", "sync-async", "logging", "framework" }
            .Select(name => all.First(e => e.Name == name)).ToList();
        var changes = new List<string>();

        var fitted = RunOpening.FitBudget(experiments, ProfileName.Quick, TimeSpan.FromMinutes(15), TimeSpan.Zero, traced: true,
            e => (e.Profiles[ProfileName.Quick].Repeat, e.VariantsToRun(false).Count), changes);

        Assert.Equal(25, fitted.Experiments.Single(e => e.Name == "framework").Profiles[ProfileName.Quick].Warmup.TotalSeconds);
        Assert.Contains("framework: warm-up cap 25 s kept (its runtimes tier: it ends once tiering settles)", changes);
        Assert.All(fitted.Experiments.Where(e => e.Name != "framework"), e => Assert.Equal(5, e.Profiles[ProfileName.Quick].Warmup.TotalSeconds));
    }
}
