using System.Text.Json;
using PerfLab.Common;
using PerfLab.Experiments.Definitions;
using PerfLab.Testing;
using PerfLab.Experiments.Running.Blocks;

namespace PerfLab.Tests.Experiments;

/// <summary>
/// Every shipped experiment's smoke profile completes every variant (issue 44). The experiments at risk run here, in one
/// invocation, and the test fails on any run that completed nothing; the others are run by the test named for them, or
/// have the load shape of one that is (their windows end the same way). A new experiment fails
/// <see cref="Experiments_EveryShippedOne_IsSmokedOrShapedLikeOneThatIs"/> until it is placed.
/// </summary>
[Collection(CpuHeavy.B)]
public sealed class ShippedSmokeTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    /// <summary>
    /// Run here: those whose baseline blocks the thread pool, where a starved variant answers in bursts seconds apart
    /// (seed 003's "no request completed in its 4 s measured window"), and http2-window, the only upload.
    /// </summary>
    private static readonly string[] RunHere = ["db-wait", "db-wait-min-threads", "sync-over-async", "http2-window"];

    private const string TwoExperiments =
        $"{nameof(RunCommandTests)}.{nameof(RunCommandTests.Run_SmokeProfileOfTwoExperiments_WritesTheThreeOutputs)}";

    /// <summary>Run by another test that fails when a run completed nothing.</summary>
    private static readonly Dictionary<string, string> RunElsewhere = new()
    {
        ["serializer"] = TwoExperiments,
        ["gc"] = TwoExperiments,
        ["sleep-vs-delay"] = "Packaging.ToolPackageTests (.ci/tool-check.sh --smoke sleep-vs-delay)",
    };

    /// <summary>
    /// Not run by a test: three SUT builds (framework), a sweep's points (sync-async-rtt: ten runs; gc-cores, whose
    /// 1-core server runs fail by design, "did not take effect"), or minutes of runs for no new shape. Each has the
    /// smoke load shape of an experiment run above (by <see cref="Shape"/>), or names the test that runs its shape.
    /// </summary>
    private static readonly Dictionary<string, string> ShapedLike = new()
    {
        ["framework"] = "serializer",
        ["framework-adonet"] = "serializer",
        ["logging"] = "serializer",
        ["platform"] = "serializer",
        ["sync-async"] = "serializer",
        ["sync-async-rtt"] = "serializer",
        ["sync-async-scaling"] = "serializer",
        ["gc-cores"] = "gc",
        ["sync-async-capacity"] = $"{nameof(CapacityRunTests)} (a capacity search end to end)",
    };

    [Fact]
    public void Experiments_EveryShippedOne_IsSmokedOrShapedLikeOneThatIs()
    {
        var shipped = ExperimentLoader.LoadFolder(PerfLabPaths.ExperimentsFolder).ToDictionary(e => e.Name);

        Assert.Equal(shipped.Keys.Order(), RunHere.Concat(RunElsewhere.Keys).Concat(ShapedLike.Keys).Order());
        foreach (var (name, like) in ShapedLike.Where(p => shipped.ContainsKey(p.Value)))
        {
            Assert.True(RunHere.Contains(like) || RunElsewhere.ContainsKey(like), $"{name} is shaped like {like}, which no test runs");
            Assert.True(Shape(shipped[name]) == Shape(shipped[like]),
                $"{name}'s smoke load is {Shape(shipped[name])}, {like}'s {Shape(shipped[like])}: run it, or name one of its shape");
        }
    }

    /// <summary>How a smoke run's windows end: the scenarios' models, and whether the variants take turns in slots.</summary>
    private static string Shape(ExperimentDefinition experiment)
    {
        var smoke = experiment.Profiles[ProfileName.Smoke];
        var models = experiment.Capacity is not null
            ? "capacity search"
            : string.Join(" + ", experiment.Scenarios.Select(s => s.Model.Kind).Distinct().Order());
        return AlternatingBlock.Applies(experiment, smoke) ? $"{models} in slots" : models;
    }

    [Fact]
    public async Task Run_ExperimentsAtRiskInTheSmokeProfile_EveryVariantCompletesRequests()
    {
        var db = await postgres.CreateDatabaseAsync();
        var output = Path.Combine(Path.GetTempPath(), "perflab-smoke-" + Guid.NewGuid().ToString("N")[..12]);

        var result = await PerfLabProcess.RunWithinAsync(TimeSpan.FromMinutes(8), null,
            ["run", .. RunHere, "--profile", "smoke", "--no-trace", "--out", output, "--connection-string", db]);

        try
        {
            Assert.True(result.ExitCode == 0, result.ToString());
            AssertEveryRunCompletedRequests(Path.Combine(output, "results.json"), RunHere);
        }
        finally
        {
            Directory.Delete(output, recursive: true);
        }
    }

    /// <summary>Every variant of every experiment ran, and each of its scenarios completed requests in its window.</summary>
    private static void AssertEveryRunCompletedRequests(string resultsJson, IReadOnlyList<string> experiments)
    {
        using var json = JsonDocument.Parse(File.ReadAllText(resultsJson));
        var ran = json.RootElement.GetProperty("experiments").EnumerateArray().ToList();
        Assert.Equal(experiments, ran.Select(e => e.GetProperty("name").GetString()));
        foreach (var experiment in ran)
        {
            var name = experiment.GetProperty("name").GetString();
            var runs = experiment.GetProperty("runs").EnumerateArray().ToList();
            Assert.Equal(experiment.GetProperty("variants").GetArrayLength(), runs.Count);
            foreach (var run in runs)
            {
                var what = $"{name}: {run.GetProperty("variant").GetString()}";
                Assert.True(run.GetProperty("status").GetString() == "ok", $"{what}: {run.GetProperty("failureReason")}");
                Assert.All(run.GetProperty("scenarios").EnumerateArray(),
                    s => Assert.True(s.GetProperty("requests").GetInt64() > 0, $"{what}: {s.GetProperty("scenario")} completed nothing"));
            }
        }
    }
}
