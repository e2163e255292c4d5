using System.Text.Json;
using PerfLab.Cli;
using PerfLab.Common;
using PerfLab.Reports;
using PerfLab.Results;
using PerfLab.Tests.Reports;

namespace PerfLab.Tests.Cli;

/// <summary>`--junit`, `--json` and the CI step summary of `compare-results` and `list`, and the "not applicable" exit.</summary>
public sealed class CiOutputTests : IDisposable
{
    private readonly DirectoryInfo _dir = Directory.CreateTempSubdirectory("perflab-ci-");

    public void Dispose() => _dir.Delete(recursive: true);

    [Fact]
    public async Task CompareResults_JunitJsonAndStepSummary_CarryTheFailedGateWithItsFigures()
    {
        var a = Folder("run-a", ReportFixtures.Scaled(1.0, 0.04, "a"));
        var b = Folder("run-b", ReportFixtures.Scaled(0.8, 0.04, "b"));
        var junit = Path.Combine(_dir.FullName, "perflab.xml");
        var stepSummary = Path.Combine(_dir.FullName, "step-summary.md");
        await File.WriteAllTextAsync(stepSummary, "earlier step\n");

        var result = await PerfLabProcess.RunAsync(new Dictionary<string, string> { [StepSummaryWriter.Variable] = stepSummary },
            "compare-results", a, b, "--threshold", "change>-5%", "--threshold", "errors<1%", "--junit", junit, "--json");

        Assert.True(result.ExitCode == (int)ExitCode.ThresholdsFailed, result.ToString());
        // stdout is the JSON alone: the tables went to stderr.
        using var json = JsonDocument.Parse(result.Stdout);
        var root = json.RootElement;
        Assert.Equal("gates failed", root.GetProperty("outcome").GetString());
        Assert.Equal(5, root.GetProperty("exitCode").GetInt32());
        var all = root.GetProperty("changes").EnumerateArray().Single(c => c.GetProperty("variant").GetString() == "system-text-json"
            && c.GetProperty("scenario").GetString() == "all" && c.GetProperty("metric").GetString() == "rps");
        Assert.Equal(-20.0, all.GetProperty("changePercent").GetDouble(), 2);
        Assert.Equal("worse", all.GetProperty("verdict").GetString());
        Assert.True(all.GetProperty("highPercent").GetDouble() < 0);

        var suites = await JunitParser.ReadAsync(junit);
        var gates = JunitParser.Suite(suites, "gates");
        var gateCases = gates.GetProperty("cases").EnumerateArray().ToList();
        var changeGates = gateCases.Where(c => c.GetProperty("name").GetString()!.StartsWith("change>-5%", StringComparison.Ordinal)).ToList();
        // Each RPS figure of B against A is one case; every one fell 20 %, so every one fails, with its figure.
        Assert.NotEmpty(changeGates);
        Assert.All(changeGates, c => Assert.Equal("failure", c.GetProperty("kind").GetString()));
        Assert.Contains(changeGates, c => c.GetProperty("message").GetString()!.Contains("observed RPS -20 %: change>-5% does not hold", StringComparison.Ordinal));
        Assert.Equal(changeGates.Count, gates.GetProperty("failures").GetInt32());
        Assert.All(gateCases.Except(changeGates), c => Assert.Equal("passed", c.GetProperty("kind").GetString()));
        Assert.Equal(root.GetProperty("gates").GetArrayLength(), gates.GetProperty("tests").GetInt32());
        Assert.Equal(root.GetProperty("changes").GetArrayLength(), JunitParser.Suite(suites, "verdicts").GetProperty("tests").GetInt32());

        var markdown = await File.ReadAllTextAsync(stepSummary);
        Assert.StartsWith("earlier step\n", markdown, StringComparison.Ordinal);
        Assert.Contains("### perflab compare-results: gates failed", markdown, StringComparison.Ordinal);
        Assert.Contains("| serializer | system-text-json vs run-a (RPS) | -20.0 % [", markdown, StringComparison.Ordinal);
        Assert.Contains("- ✗ `change>-5%` on serializer / system-text-json / all: run-b vs run-a: RPS -20 %", markdown, StringComparison.Ordinal);
        Assert.Contains("- ✓ `errors<1%`", markdown, StringComparison.Ordinal);
    }

    [Fact]
    public async Task CompareResults_JunitFolderMissing_ExitsWithUsageBeforeReading()
    {
        var a = Folder("a", ReportFixtures.Sample());

        var result = await PerfLabProcess.RunAsync("compare-results", a, a, "--junit", Path.Combine(_dir.FullName, "no", "such", "x.xml"));

        Assert.Equal((int)ExitCode.Usage, result.ExitCode);
        Assert.Contains("--junit: cannot write", result.Stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task List_Json_GivesEveryExperimentWithItsVariantsAndProfiles()
    {
        var result = await PerfLabProcess.RunAsync("list", "--json");

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(result.Stdout);
        var experiments = json.RootElement.EnumerateArray().ToList();
        Assert.Equal(Directory.GetFiles(Path.Combine(PerfLabPaths.RepoRoot, "experiments"), "*.yaml").Length, experiments.Count);
        var gcCores = experiments.Single(e => e.GetProperty("name").GetString() == "gc-cores");
        Assert.Equal(["workstation", "server"], gcCores.GetProperty("variants").EnumerateArray().Select(v => v.GetString()));
        Assert.Equal("workstation", gcCores.GetProperty("baseline").GetString());
        Assert.False(gcCores.GetProperty("runsByDefault").GetBoolean());
        Assert.Equal([1.0, 2.0], gcCores.GetProperty("sweep").EnumerateArray().Select(v => v.GetDouble()));
        Assert.Equal("3m", gcCores.GetProperty("profiles").GetProperty("article").GetProperty("duration").GetString());
        Assert.Equal("000", gcCores.GetProperty("seed").GetString());
    }

    [Fact]
    public void ExitCodeOf_ServerGcOnOneCore_IsNotApplicableAndNotAFailure()
    {
        var results = OneCorePoint("the variant did not take effect: GC mode (DOTNET_gcServer=1): asked server, observed workstation (no '.NET Server GC' thread)");

        Assert.Equal(ExitCode.Success, RunCommand.ExitCodeOf(results, CancellationToken.None));
        var problem = Assert.Single(CiSummary.Of(results, "run", 0).Problems);
        Assert.Equal(("not applicable", "server", 2), (problem.Kind, problem.Variant, problem.Runs));
    }

    [Theory]
    [InlineData("the variant did not take effect: GC mode (DOTNET_gcServer=1): asked server, observed workstation (no thread); Sut:Mode=x: asked x, observed y")]
    [InlineData("the variant did not take effect: cores: asked for 1, /info reports processorCount 2")]
    public void ExitCodeOf_AnythingElseNotInEffect_StillFails(string reason)
    {
        var results = OneCorePoint(reason);

        Assert.Equal(ExitCode.Failed, RunCommand.ExitCodeOf(results, CancellationToken.None));
        Assert.Equal("failed", Assert.Single(CiSummary.Of(results, "run", 1).Problems).Kind);
    }

    /// <summary>The sample run with its first experiment a one-core sweep point whose "server" runs did not take effect.</summary>
    private static RunResults OneCorePoint(string reason)
    {
        var sample = ReportFixtures.Sample();
        var experiment = sample.Experiments[0];
        var ok = experiment.Runs.First(r => r.Status == RunStatus.Ok);
        var failed = Enumerable.Range(1, 2).Select(i => ok with
        {
            Variant = "server", Repetition = i, Status = RunStatus.Failed, FailureKind = FailureKind.VariantNotInEffect, FailureReason = reason,
            SutInfo = new Dictionary<string, string> { ["processorCount"] = "1" },
        });
        experiment = experiment with
        {
            SweepPoint = new SweepPoint("gc-cores", ConditionKind.Cores, 1),
            Runs = [.. experiment.Runs.Where(r => r.Status == RunStatus.Ok), .. failed],
        };
        return sample with { Experiments = [experiment] };
    }

    private string Folder(string name, RunResults results)
    {
        var path = Path.Combine(_dir.FullName, name);
        ReportWriters.WriteAll(results, path, ReportWriters.ForFormats("json"));
        return path;
    }
}
