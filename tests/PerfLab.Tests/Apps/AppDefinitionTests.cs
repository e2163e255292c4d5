using PerfLab.Apps;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;

namespace PerfLab.Tests.Apps;

/// <summary>The experiment file's app: section and the variant keys that go with it.</summary>
public sealed class AppDefinitionTests : IDisposable
{
    private readonly string _folder = Path.Combine(Path.GetTempPath(), "perflab-appdef-" + Guid.NewGuid().ToString("N")[..12]);

    public AppDefinitionTests()
    {
        Directory.CreateDirectory(Path.Combine(_folder, "App"));
        File.WriteAllText(Path.Combine(_folder, "App", "App.csproj"), "<Project Sdk=\"Microsoft.NET.Sdk.Web\" />");
    }

    public void Dispose() => Directory.Delete(_folder, recursive: true);

    private ExperimentDefinition Parse(string app, string variantB) => ExperimentLoader.Parse($"""
        name: mine
        {app}
        baseline: a
        variants:
          - name: a
          - name: b
        {variantB}
        load:
          scenarios:
            - {"{"} name: home, url: /, model: closed, users: 2 {"}"}
        profiles:
          article: {"{"} warmup: 1s, duration: 2s, repeat: 1 {"}"}
          quick: {"{"} warmup: 1s, duration: 2s, repeat: 1 {"}"}
          smoke: {"{"} warmup: 1s, duration: 2s, repeat: 1 {"}"}
        """, Path.Combine(_folder, "mine.yaml"));

    [Fact]
    public void Parse_ProjectApp_ResolvesAgainstTheFileAndNeedsNoSeed()
    {
        var experiment = Parse("app: { project: App, ready: /healthz }", "    config: { \"Report:Cache\": \"true\" }\n    env: { X: \"1\" }");

        Assert.NotNull(experiment.App);
        Assert.Equal(AppSourceKind.Project, experiment.App.Kind);
        Assert.Equal(Path.Combine(_folder, "App"), experiment.App.Path);
        Assert.Equal(AppBinding.Urls, experiment.App.Binding);
        Assert.Equal("/healthz", experiment.App.ReadyPath);
        Assert.Equal("", experiment.Seed);
        var launch = experiment.App.LaunchFor(experiment.Variants[1], cpuSet: null);
        Assert.Equal("true", launch.Configuration["Report:Cache"]);
        Assert.Equal("1", launch.Environment["X"]);
    }

    [Fact]
    public void Parse_CommandWithPort_BindsThroughThePlaceholder()
    {
        var experiment = Parse("app: { command: \"dotnet x.dll --urls http://127.0.0.1:{port}\" }", "");

        Assert.Equal(AppBinding.Placeholder, experiment.App!.Binding);
        Assert.Equal(AppSourceKind.Command, experiment.App.Kind);
    }

    [Theory]
    [InlineData("app: { project: App }", "    settings: { DataAccess: sync }", "'settings' is a setting of the built-in SUT")]
    [InlineData("", "    config: { A: \"1\" }", "'config' belongs to an app of your own")]
    [InlineData("app: { command: \"run-it\" }", "    ref: main", "ref builds a commit of a project")]
    [InlineData("app: { project: Missing }", "", "project 'Missing' does not exist")]
    [InlineData("app: { project: App, dll: x.dll }", "", "expected exactly one of app.project")]
    [InlineData("app: { command: \"run-it\", bind: placeholder }", "", "needs {port} in app.command")]
    [InlineData("app: { project: App, ready: healthz }", "", "must be a path on the app starting with '/'")]
    public void Parse_AppMistake_StopsWithPositionAndWhatToDo(string app, string variantB, string expected)
    {
        var ex = Assert.Throws<PerfLabException>(() => Parse(app, variantB));

        Assert.Equal(ExitCode.Usage, ex.ExitCode);
        Assert.Contains(expected, ex.Message);
        Assert.StartsWith(Path.Combine(_folder, "mine.yaml") + ":", ex.Message);
    }
}
