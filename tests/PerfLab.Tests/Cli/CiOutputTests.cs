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
        Assert.Contains(changeGates, c => c.GetProperty("message").GetString()!.StartsWith("observed RPS -20 %; worse end -2",
            StringComparison.Ordinal) && c.GetProperty("message").GetString()!.EndsWith(": change>-5% does not hold", StringComparison.Ordinal));
        Assert.Equal(changeGates.Count, gates.GetProperty("failures").GetInt32());
        Assert.All(gateCases.Except(changeGates), c => Assert.Equal("passed", c.GetProperty("kind").GetString()));
        Assert.Equal(root.GetProperty("gates").GetArrayLength(), gates.GetProperty("tests").GetInt32());
        var verdicts = JunitParser.Suite(suites, "verdicts");
        Assert.Equal(root.GetProperty("changes").GetArrayLength(), verdicts.GetProperty("tests").GetInt32());
        // A worse verdict the gate read is a failure too, naming the variant; one shown beside it (p99) is a finding.
        var worseRead = verdicts.GetProperty("cases").EnumerateArray()
            .Single(c => c.GetProperty("name").GetString() == "serializer: system-text-json vs run-a (all rps)");
        Assert.Equal("failure", worseRead.GetProperty("kind").GetString());
        Assert.StartsWith("worse: system-text-json -20.0 % [", worseRead.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.EndsWith("against run-a, read by change>-5%", worseRead.GetProperty("message").GetString(), StringComparison.Ordinal);
        Assert.All(verdicts.GetProperty("cases").EnumerateArray().Where(c => c.GetProperty("name").GetString()!.Contains("p99")),
            c => Assert.Equal("passed", c.GetProperty("kind").GetString()));
        // Times are the seconds measured: both folders' runs of the variant and its baseline, never 0.
        Assert.All(suites.EnumerateArray().Where(s => s.GetProperty("tests").GetInt32() > 0),
            s => Assert.True(s.GetProperty("time").GetDouble() > 0, s.GetProperty("name").GetString()));
        Assert.True(worseRead.GetProperty("time").GetDouble() > 0);

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

    [Theory]
    // An app's own: the process's threads; the built-in SUT's: its /info (gc-cores' smoke run exited 1 on this wording).
    [InlineData("the variant did not take effect: GC mode (DOTNET_gcServer=1): asked server, observed workstation (no '.NET Server GC' thread)")]
    [InlineData("the variant did not take effect: GC mode (DOTNET_gcServer): asked for server, /info reports workstation")]
    public void ExitCodeOf_ServerGcOnOneCore_IsNotApplicableAndNotAFailure(string reason)
    {
        var results = OneCorePoint(reason);

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
