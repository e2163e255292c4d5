using PerfLab.Experiments.Running.Budget;

namespace PerfLab.Tests.Experiments.Running;

public sealed class RunPlanTests
{
    [Fact]
    public void Block_ThreeVariants_RotatesByOnePlacePerBlock()
    {
        string[] variants = ["A", "B", "C"];

        Assert.Equal(["A", "B", "C"], RunPlan.Block(variants, 1));
        Assert.Equal(["B", "C", "A"], RunPlan.Block(variants, 2));
        Assert.Equal(["C", "A", "B"], RunPlan.Block(variants, 3));
        Assert.Equal(["A", "B", "C"], RunPlan.Block(variants, 4));
    }

    [Fact]
    public void Interleave_TwoBlocks_NumbersEachRunWithItsBlock()
    {
        var order = RunPlan.Interleave(["A", "B"], 2).ToList();

        Assert.Equal([("A", 1), ("B", 1), ("B", 2), ("A", 2)], order);
    }

    [Fact]
    public void Remaining_BeforeAnyRun_IsPlannedTimePlusDefaultOverheadForEveryRun()
    {
        var plan = new RunPlan([new PlannedExperiment("x", 10, 2, 3), new PlannedExperiment("y", 20, 3, 1)]);

        Assert.Equal(9, plan.TotalRuns);
        Assert.Equal(6 * 13 + 3 * 23, plan.Remaining(1).TotalSeconds, 6);
        Assert.Equal(3 * 23, plan.Remaining(7).TotalSeconds, 6);
        Assert.Equal(0, plan.Remaining(10).TotalSeconds);
    }

    [Fact]
    public void Remaining_AfterObservedRuns_UsesOwnRunTimeAndObservedOverheadForOthers()
    {
        var plan = new RunPlan([new PlannedExperiment("x", 10, 2, 2), new PlannedExperiment("y", 20, 1, 2)]);
        plan.Observe("x", 1, 12);
        plan.Observe("x", 1, 16); // x: 14 s a run; overhead 2 and 6, so 4 s beyond plan on average

        Assert.Equal(2 * 14 + 2 * 24, plan.Remaining(3).TotalSeconds, 6);
    }

    [Fact]
    public void Remaining_PlanFittedIntoABudget_NeverRunsPastItsEnd()
    {
        // The default run's second progress line once read "ETA 46 min 9 s" 40 s into a 20-minute budget: db-wait's
        // traced first run (44 s for 15 planned) made 29 s of overhead for every run not yet measured.
        var started = DateTimeOffset.UtcNow - TimeSpan.FromMinutes(1);
        PlannedExperiment[] experiments = [new("db-wait", 15, 2, 3), new("gc", 13, 3, 30)];
        var fitted = new RunPlan(experiments, new TimeBudget(TimeSpan.FromMinutes(20), started));
        var unbounded = new RunPlan(experiments);
        foreach (var plan in new[] { fitted, unbounded })
        {
            plan.Observe("db-wait", 1, 44);
        }

        Assert.Equal(5 * 44 + 90 * 42, unbounded.Remaining(2).TotalSeconds, 6);
        Assert.InRange(fitted.Remaining(2).TotalSeconds, 19 * 60 - 30, 19 * 60);
        // What is left of the plan, when less than the budget's end: the estimate.
        Assert.Equal(unbounded.Remaining(90).TotalSeconds, fitted.Remaining(90).TotalSeconds, 6);
    }

    [Fact]
    public void Remaining_BudgetsOwnBlocks_RunToItsEnd()
    {
        // After the minimum blocks, one block at a time goes to whichever experiment is short of its target until none
        // fits: the block planned so far is not the end ("ETA 41 s" three minutes before a default run ended).
        var plan = new RunPlan([new PlannedExperiment("gc", 13, 3, 4)],
            new TimeBudget(TimeSpan.FromMinutes(20), DateTimeOffset.UtcNow - TimeSpan.FromMinutes(17)));
        plan.Observe("gc", 2, 14);

        Assert.Equal(3 * 14, plan.Remaining(10).TotalSeconds, 6);
        plan.SpendingTheBudget = true;
        Assert.InRange(plan.Remaining(10).TotalSeconds, 3 * 60 - 30, 3 * 60);
    }

    [Fact]
    public void Remaining_BudgetAlreadySpent_TheEstimateStill()
    {
        // A minimum planned to overrun is not fitted (EndsWithin null); one that overran anyway is not cut to zero.
        var plan = new RunPlan([new PlannedExperiment("x", 10, 2, 3)],
            new TimeBudget(TimeSpan.FromMinutes(1), DateTimeOffset.UtcNow - TimeSpan.FromMinutes(2)));

        Assert.Equal(6 * 13, plan.Remaining(1).TotalSeconds, 6);
    }

    [Fact]
    public void AddBlock_Experiment_AddsOneRunPerVariantToThePlan()
    {
        var plan = new RunPlan([new PlannedExperiment("x", 10, 3, 2)]);

        plan.AddBlock("x");

        Assert.Equal(3, plan.BlocksOf("x"));
        Assert.Equal(9, plan.TotalRuns);
    }
}
