using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Results;

namespace PerfLab.Tests.Cli;

/// <summary>
/// The README's CI recipe and the shipped CI files (samples/ci) run the same command, so they cannot drift apart; the
/// experiment it names loads, and its profile gives the interval its gate reads.
/// </summary>
public sealed class CiSamplesTests
{
    private static readonly string Root = PerfLabPaths.RepoRoot;

    /// <summary>The README's recipe: its one line that runs the shipped CI experiment.</summary>
    private static string Recipe()
    {
        var lines = File.ReadAllLines(Path.Combine(Root, "README.md"))
            .Where(l => l.StartsWith("./perflab run pr --experiments-dir samples/ci/perf ", StringComparison.Ordinal)).ToList();
        return Assert.Single(lines).Trim();
    }

    [Theory]
    [InlineData("samples/ci/github-actions.yml")]
    [InlineData("samples/ci/gitlab-ci.yml")]
    [InlineData("samples/ci/README.md")]
    [InlineData("docs/cli.md")]
    public void CiFiles_RunTheReadmesRecipe(string file)
    {
        var recipe = Recipe();

        var lines = File.ReadAllLines(Path.Combine(Root, file)).Select(l => l.Trim().TrimStart('-').Trim());
        Assert.Contains(recipe, lines);
    }

    [Fact]
    public void Recipe_ItsExperimentLoads_AndItsProfileDecides()
    {
        var recipe = Recipe();
        Assert.Contains("--profile quick", recipe, StringComparison.Ordinal);
        Assert.Contains("--junit ", recipe, StringComparison.Ordinal);
        var gate = Threshold.Parse(recipe.Split("--threshold \"")[1].Split('"')[0]);

        var pr = Assert.Single(ExperimentLoader.LoadFolder(Path.Combine(Root, "samples", "ci", "perf")));

        Assert.Equal(("pr", "main", Metrics.CpuPerRequest), (pr.Name, pr.Baseline, pr.Decide));
        Assert.Equal("origin/main", pr.Variants.Single(v => v.Name == "main").Ref);
        Assert.True(gate.NeedsInterval);
        Assert.True(pr.Profiles[ProfileName.Quick].Repeat >= 2);
        Assert.Equal(10, gate.Margin);
    }
}
