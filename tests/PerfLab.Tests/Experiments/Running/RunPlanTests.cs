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
        plan.Observe("x", 12);
        plan.Observe("x", 16); // x: 14 s a run; overhead 2 and 6, so 4 s beyond plan on average

        Assert.Equal(2 * 14 + 2 * 24, plan.Remaining(3).TotalSeconds, 6);
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
