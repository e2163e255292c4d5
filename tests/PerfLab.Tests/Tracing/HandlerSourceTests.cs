using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

// The handler a route maps to, read from a real app's assembly and its portable PDB (tests/apps/BlockingApp, built with
// this project): what names a handler the JIT inlined into its endpoint delegate.
public sealed class HandlerSourceTests
{
    [Fact]
    public void Find_MappedRoute_HandlerLambdaWithItsSourceLine()
    {
        var program = File.ReadAllLines(Path.Combine(PerfLab.Common.PerfLabPaths.RepoRoot, "tests", "apps", "BlockingApp", "Program.cs"));
        var line = Array.FindIndex(program, l => l.StartsWith("app.MapGet(\"/join\"", StringComparison.Ordinal)) + 1;

        var handler = HandlerSource.Find(BlockingApp.Dll(), "/join?x=1");

        Assert.Matches(@"^Program\.<Main>\$ lambda b__\d+_\d+ \(Program\.cs:\d+\)$", handler);
        Assert.EndsWith($"(Program.cs:{line})", handler);
        Assert.NotEqual(handler, HandlerSource.Find(BlockingApp.Dll(), "/sleep"));
    }

    [Fact]
    public void Find_RouteNotMappedOrNoAssembly_Null()
    {
        Assert.Null(HandlerSource.Find(BlockingApp.Dll(), "/not-mapped"));
        Assert.Null(HandlerSource.Find("/nonexistent/App.dll", "/join"));
    }

    [Theory]
    [InlineData("/orders/{id}", "/orders/42", true)]
    [InlineData("/Orders/{id:int}", "/orders/42?expand=1", true)]
    [InlineData("/orders", "/orders/42", false)]
    [InlineData("/", "/", true)]
    [InlineData("/weatherforecast-sync", "/weatherforecast-async", false)]
    public void RouteMatches_TemplateAgainstPath(string template, string path, bool matches) =>
        Assert.Equal(matches, HandlerSource.RouteMatches(template, path));
}
