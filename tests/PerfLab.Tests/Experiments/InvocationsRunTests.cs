using System.Diagnostics;
using System.Text;
using System.Text.Json;
using PerfLab.Testing;

namespace PerfLab.Tests.Experiments;

/// <summary>`perflab run --invocations` end to end: child perflab processes, real PostgreSQL, real SUTs, one pooled result.</summary>
[Collection(CpuHeavy.B)]
public sealed class InvocationsRunTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    // A 5 ms await, not a database page: on a loaded CI machine PostgreSQL once took 2.2 s a query, and a 2 s window
    // completed no request (NothingCompleted; before that failure kind, a comparison written as NaN). What is tested is
    // how invocations pool, not the database: the endpoint reads neither variant's switch, so the two are alike.
    private const string Tiny = """
        name: tinyinvocations
        title: Tiny invocations
        seed: "000"
        reproduces: nothing, a test
        baseline: sync
        default: false
        variants:
          - name: sync
            settings: { DataAccess: sync }
          - name: async
            settings: { DataAccess: async }
        load:
          scenarios:
            - name: forecast
              url: /weatherforecast-async?ms=5
              model: closed
              users: 2
        profiles:
          article: { warmup: 1s, duration: 2s, repeat: 2 }
          quick: { warmup: 1s, duration: 2s, repeat: 2 }
          smoke: { warmup: 1s, duration: 2s, repeat: 2 }
        """;

    private static readonly string[] Verdicts = ["better", "worse", "equivalent", "inconclusive"];

    private static string NewFolder() => Path.Combine(Path.GetTempPath(), "perflab-invocations-" + Guid.NewGuid().ToString("N")[..12]);

    private static string WriteExperiment()
    {
        var folder = NewFolder();
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "tinyinvocations.yaml"), Tiny);
        return folder;
    }

    /// <summary>An experiment's comparison of all scenarios' RPS in results.json.</summary>
    private static JsonElement AllRps(JsonElement experiment) => experiment.GetProperty("comparisons").EnumerateArray()
        .Single(c => c.GetProperty("scenario").GetString() == "all" && c.GetProperty("metric").GetString() == "rps");

    [Fact]
    public async Task Run_TwoInvocations_EachInItsFolderAndTheTopResultPoolsTheirEstimates()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment();
        var output = NewFolder();

        var result = await PerfLabProcess.RunAsync("run", "tinyinvocations", "--experiments-dir", folder, "--profile", "smoke",
            "--no-trace", "--invocations", "2", "--budget", "10m", "--out", output, "--connection-string", db, "--json");

        Assert.True(result.ExitCode == 0, result.ToString());
        // --json: stdout is the pooled summary alone; the invocations' progress went to stderr.
        using var summary = JsonDocument.Parse(result.Stdout);
        var ciChange = summary.RootElement.GetProperty("changes").EnumerateArray()
            .Single(c => c.GetProperty("scenario").GetString() == "all" && c.GetProperty("metric").GetString() == "rps");
        Assert.Contains(ciChange.GetProperty("verdict").GetString(), Verdicts);
        Assert.Contains("invocation 1/2: ", result.Stderr);
        Assert.Contains("invocation 2/2: ", result.Stderr);
        foreach (var k in new[] { 1, 2 })
        {
            Assert.True(File.Exists(Path.Combine(output, $"invocation-{k}", "results.json")), $"invocation-{k}\n{result}");
        }
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var invocations = json.RootElement.GetProperty("invocations").EnumerateArray().ToList();
        Assert.Equal(["invocation-1", "invocation-2"], invocations.Select(i => i.GetProperty("folder").GetString()));
        var experiment = Assert.Single(json.RootElement.GetProperty("experiments").EnumerateArray());
        // Both invocations' runs: two blocks of two variants each, the second invocation's blocks numbered 3 and 4.
        Assert.Equal([1, 1, 2, 2, 3, 3, 4, 4], experiment.GetProperty("runs").EnumerateArray()
            .Select(r => r.GetProperty("repetition").GetInt32()).Order());
        var rps = AllRps(experiment);
        Assert.Equal("invocations", rps.GetProperty("method").GetString());
        Assert.Contains(rps.GetProperty("verdict").GetString(), Verdicts);
        var estimates = rps.GetProperty("invocations").GetProperty("estimates").EnumerateArray().ToList();
        Assert.Equal([1, 2], estimates.Select(e => e.GetProperty("invocation").GetInt32()));
        // Each estimate is its invocation's own paired comparison, as its own results.json has it.
        foreach (var (estimate, k) in estimates.Zip([1, 2]))
        {
            using var own = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, $"invocation-{k}", "results.json")));
            var ownRps = AllRps(own.RootElement.GetProperty("experiments")[0]);
            Assert.Equal(ownRps.GetProperty("changePercent").GetDouble(), estimate.GetProperty("changePercent").GetDouble());
            Assert.Equal("paired", ownRps.GetProperty("method").GetString());
        }
        var changes = estimates.Select(e => e.GetProperty("changePercent").GetDouble()).ToList();
        var pooled = rps.GetProperty("changePercent").GetDouble();
        Assert.InRange(pooled, changes.Min() - 1e-9, changes.Max() + 1e-9);
        Assert.Contains("; invocations: ", result.Stderr);
        Assert.Contains("## Invocations", File.ReadAllText(Path.Combine(output, "report.md")));
        Assert.Contains("id=\"invocations\"", File.ReadAllText(Path.Combine(output, "report.html")));
    }

    [Fact]
    public async Task Run_CtrlCDuringTheSecondInvocation_CombinesTheFirstAndExits130()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = WriteExperiment();
        var output = NewFolder();
        var lines = new StringBuilder();
        var secondMeasuring = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var perflab = Process.Start(PerfLabProcess.WithSigintDefault(PerfLabProcess.StartInfo(null, "run", "tinyinvocations",
            "--experiments-dir", folder, "--profile", "smoke", "--no-trace", "--invocations", "2", "--budget", "10m",
            "--out", output, "--connection-string", db)))!;
        void Collect(string? line)
        {
            lock (lines)
            {
                lines.AppendLine(line);
                var text = lines.ToString();
                // The second invocation has measured a run (its SIGINT handler is in place, and it has something to lose):
                // a signal during its first SUT's start could leave it nothing measured, and so nothing to write.
                if (text.IndexOf("invocation 2/2", StringComparison.Ordinal) is var at and >= 0
                    && text.IndexOf(" RPS, mean ", at, StringComparison.Ordinal) >= 0)
                {
                    secondMeasuring.TrySetResult();
                }
            }
        }
        perflab.OutputDataReceived += (_, e) => Collect(e.Data);
        perflab.ErrorDataReceived += (_, e) => Collect(e.Data);
        perflab.BeginOutputReadLine();
        perflab.BeginErrorReadLine();
        try
        {
            await Task.WhenAny(secondMeasuring.Task, perflab.WaitForExitAsync()).WaitAsync(TimeSpan.FromSeconds(120));
            Assert.True(secondMeasuring.Task.IsCompleted, lines.ToString());
            // To the controller alone, as a signal from another terminal: it passes it on to the invocation it runs.
            Process.Start("kill", ["-INT", perflab.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)])!.WaitForExit();
            await perflab.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));
            perflab.WaitForExit();
        }
        finally
        {
            if (!perflab.HasExited)
            {
                perflab.Kill(entireProcessTree: true);
            }
        }

        Assert.True(perflab.ExitCode == 130, lines.ToString());
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        Assert.True(json.RootElement.GetProperty("incomplete").GetBoolean());
        Assert.Contains("interrupted during invocation 2 of 2", json.RootElement.GetProperty("incompleteReason").GetString());
        var invocation = Assert.Single(json.RootElement.GetProperty("invocations").EnumerateArray());
        Assert.Equal("invocation-1", invocation.GetProperty("folder").GetString());
        var rps = AllRps(json.RootElement.GetProperty("experiments")[0]);
        Assert.Single(rps.GetProperty("invocations").GetProperty("estimates").EnumerateArray());
        // One invocation cannot say how invocations vary: no pooled interval, no decided verdict.
        Assert.Equal("inconclusive", rps.GetProperty("verdict").GetString());
        Assert.True(File.Exists(Path.Combine(output, "report.md")));
        Assert.True(File.Exists(Path.Combine(output, "invocation-2", "results.json")), lines.ToString());
    }

    [Theory]
    [InlineData("0", "--invocations must be a whole number from 1 to 100, not 0.")]
    [InlineData("-3", "--invocations must be a whole number from 1 to 100, not -3.")]
    [InlineData("two", "'two' is not valid for --invocations: expected a whole number.")]
    public async Task Run_BadInvocations_UsageErrorNamingIt(string count, string message)
    {
        var output = NewFolder();

        var result = await PerfLabProcess.RunAsync("run", "--invocations", count, "--out", output);

        Assert.True(result.ExitCode == 2, result.ToString());
        Assert.Contains(message, result.Stderr);
        Assert.False(Directory.Exists(output));
    }
}
