using PerfLab.Common;

namespace PerfLab.Tests.Architecture;

public sealed class DependencyRuleTests
{
    [Fact]
    public void Perflab_Assembly_ObeysTheLayersAndHasNoCycles()
    {
        var dependencies = IlDependencies.Read(typeof(PerfLabPaths).Assembly.Location);

        var violations = DependencyRule.Violations(dependencies);

        Assert.True(violations.Count == 0, $"{violations.Count} broken dependency rules:\n{string.Join('\n', violations)}");
    }

    [Fact]
    public void Read_Perflab_SeesUsesFromSignaturesAndBodies()
    {
        // The reader must see what the rule is about, or an empty graph would pass: commands use Common, and the
        // async state machines of the commands are charged to the commands.
        var dependencies = IlDependencies.Read(typeof(PerfLabPaths).Assembly.Location);

        Assert.Contains(dependencies, d => d.FromNamespace == "PerfLab.Cli" && d.ToType == typeof(ExitCode).FullName);
        Assert.DoesNotContain(dependencies, d => d.FromType.Contains('<') || d.ToType.Contains('<') || d.FromType.Contains('/'));
        Assert.Contains(dependencies, d => d.FromNamespace == "PerfLab.Counters" && d.ToNamespace == "PerfLab.Common");
    }

    [Fact]
    public void Violations_AllowedGraph_None()
    {
        var graph = new[]
        {
            Use("PerfLab.Program", "PerfLab.Cli.PerfLabCli"),
            Use("PerfLab.Cli.RunCommand", "PerfLab.Reports.MarkdownReportWriter"),
            Use("PerfLab.Experiments.Running.Runner", "PerfLab.Load.LoadEngine"),
            Use("PerfLab.Experiments.Running.Runner", "PerfLab.Results.RunResults"),
            Use("PerfLab.Experiments.Running.Runner", "PerfLab.Experiments.Analysis.Analyzer"),
            Use("PerfLab.Experiments.Running.Runner", "PerfLab.Experiments.Definitions.ExperimentDefinition"),
            Use("PerfLab.Experiments.Analysis.Analyzer", "PerfLab.Experiments.Definitions.ExperimentDefinition"),
            Use("PerfLab.Experiments.Running.CapacityProbe", "PerfLab.Experiments.Definitions.CapacitySlo"),
            Use("PerfLab.Load.LoadEngine", "PerfLab.Common.ExitCode"),
            Use("PerfLab.Reports.Writer", "PerfLab.Results.RunResults"),
            Use("PerfLab.Results.RunResults", "PerfLab.Common.Descriptive"),
        };

        Assert.Empty(DependencyRule.Violations(graph));
    }

    [Fact]
    public void Violations_CycleBetweenFolders_NamesTheCycleAndEachStep()
    {
        var graph = new[]
        {
            Use("PerfLab.Load.LoadEngine", "PerfLab.Common.ExitCode"),
            Use("PerfLab.Common.ProcessRunner", "PerfLab.Load.LoadEngine"),
        };

        var violations = DependencyRule.Violations(graph);

        Assert.Equal(
            [
                "Common -> Load is not allowed, e.g. PerfLab.Common.ProcessRunner uses PerfLab.Load.LoadEngine",
                "cycle Common -> Load -> Common: PerfLab.Common.ProcessRunner uses PerfLab.Load.LoadEngine; PerfLab.Load.LoadEngine uses PerfLab.Common.ExitCode",
            ],
            violations);
    }

    [Fact]
    public void Cycles_ThreeFoldersInARing_FoundOnceInOrder()
    {
        var cycles = DependencyRule.Cycles([("Reports", "Results"), ("Results", "Experiments"), ("Experiments", "Reports"), ("Experiments", "Common")]);

        var cycle = Assert.Single(cycles);
        Assert.Equal(["Experiments", "Reports", "Results"], cycle);
    }

    [Theory]
    [InlineData("PerfLab.Load.LoadEngine", "PerfLab.Counters.CounterCollector", "Load -> Counters")]
    [InlineData("PerfLab.Experiments.Running.Runner", "PerfLab.Reports.Fmt", "Experiments.Running -> Reports")]
    [InlineData("PerfLab.Experiments.Analysis.Analyzer", "PerfLab.Experiments.Running.Runner", "Experiments.Analysis -> Experiments.Running")]
    [InlineData("PerfLab.Experiments.Definitions.ExperimentLoader", "PerfLab.Experiments.Analysis.VariantStatistics", "Experiments.Definitions -> Experiments.Analysis")]
    [InlineData("PerfLab.Experiments.Definitions.CapacitySlo", "PerfLab.Experiments.Running.CapacitySearch",
        "Experiments.Definitions -> Experiments.Running")]
    [InlineData("PerfLab.Reports.Fmt", "PerfLab.Load.LoadSummary", "Reports -> Load")]
    [InlineData("PerfLab.Results.RunResults", "PerfLab.Experiments.Analysis.Statistics", "Results -> Experiments.Analysis")]
    [InlineData("PerfLab.SutProcesses.SutProcess", "PerfLab.Cli.ExitCode", "SutProcesses -> Cli")]
    [InlineData("PerfLab.SutProcesses.SutProcess", "PerfLab.Apps.BuiltInSut", "SutProcesses -> Apps")]
    [InlineData("PerfLab.Apps.ExternalApp", "PerfLab.Experiments.Definitions.AppDefinition", "Apps -> Experiments.Definitions")]
    [InlineData("PerfLab.Hosts.IntervalLog", "PerfLab.Experiments.Definitions.AppDefinition", "Hosts -> Experiments.Definitions")]
    [InlineData("PerfLab.Load.LoadEngine", "PerfLab.Hosts.IntervalLog", "Load -> Hosts")]
    public void Violations_EdgeAgainstTheLayers_Reported(string from, string to, string edge)
    {
        var violations = DependencyRule.Violations([Use(from, to)]);

        Assert.Equal($"{edge} is not allowed, e.g. {from} uses {to}", Assert.Single(violations));
    }

    [Fact]
    public void Violations_FolderOutsideEveryLayer_Reported()
    {
        var violations = DependencyRule.Violations([Use("PerfLab.Gadgets.Widget", "PerfLab.Common.ExitCode")]);

        Assert.Equal("PerfLab.Gadgets belongs to no layer: place it in DependencyRule", Assert.Single(violations));
    }

    private static TypeDependency Use(string fromType, string toType) =>
        new(fromType, fromType[..fromType.LastIndexOf('.')], toType, toType[..toType.LastIndexOf('.')]);
}
