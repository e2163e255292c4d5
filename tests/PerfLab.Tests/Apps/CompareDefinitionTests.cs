using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Load;

namespace PerfLab.Tests.Apps;

/// <summary>`perflab compare`'s command line turned into an experiment: variants, scenarios, the app.</summary>
public sealed class CompareDefinitionTests
{
    private static CompareSpec Spec(params string[] variants) =>
        new(TinyShopBuild.Project, null, ["/report", "/products/1"], null, 200, variants, "/healthz");

    [Fact]
    public void Build_VariantItems_BecomeEnvironmentConfigurationAndGitRef()
    {
        var experiment = CompareDefinition.Build(
            Spec("before", "after: DOTNET_gcServer=1, --Report:Cache=true @v2", "env-only: A=x=y"), Environment.CurrentDirectory);

        Assert.Equal("before", experiment.Baseline);
        var after = experiment.Variants[1];
        Assert.Equal(("after", "1", "true", "v2"), (after.Name, after.Env["DOTNET_gcServer"], after.Config["Report:Cache"], after.Ref));
        Assert.Equal("x=y", experiment.Variants[2].Env["A"]);
        Assert.Equal(AppSourceKind.Project, experiment.App!.Kind);
        Assert.Equal("/healthz", experiment.App.ReadyPath);
        Assert.Equal(new[] { ("url1", 200.0), ("url2", 200.0) },
            experiment.Scenarios.Select(s => (s.Name, Assert.IsType<OpenModel>(s.Model).Rate)).ToList());
    }

    [Fact]
    public void Build_CommandWithPort_BindsThroughThePlaceholderAndRefusesGitRefs()
    {
        var spec = new CompareSpec(null, "dotnet app.dll --urls http://127.0.0.1:{port}", ["/"], 4, null, ["a", "b: @main"], "/");

        var ex = Assert.Throws<PerfLabException>(() => CompareDefinition.Build(spec, Environment.CurrentDirectory));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains("@main builds a git ref of a project", ex.Message, StringComparison.Ordinal);
        var fine = CompareDefinition.Build(spec with { Variants = ["a", "b: X=1"] }, Environment.CurrentDirectory);
        Assert.Equal((AppBinding.Placeholder, 4), (fine.App!.Binding, Assert.IsType<ClosedModel>(fine.Scenarios[0].Model).Users));
    }

    [Theory]
    [InlineData("/nowhere/app", null, "does not exist")]
    [InlineData(null, null, "give the app (a project folder, .csproj or .dll) or --command")]
    public void Build_NoUsableApp_SaysWhatToGive(string? app, string? command, string expected)
    {
        var spec = new CompareSpec(app, command, ["/"], null, null, ["a", "b"], "/");

        var ex = Assert.Throws<PerfLabException>(() => CompareDefinition.Build(spec, Environment.CurrentDirectory));

        Assert.Contains(expected, ex.Message, StringComparison.Ordinal);
    }
}
