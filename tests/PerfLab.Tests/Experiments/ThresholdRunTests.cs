using System.Text.Json;
using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Tests.Experiments;

/// <summary>`perflab run` with response checks and thresholds, end to end against the real SUT and PostgreSQL.</summary>
public sealed class ThresholdRunTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    // The SUT's forecast waits 20 ms and answers a JSON array of five forecasts: a median under 5 ms cannot hold,
    // and a sixth element never exists.
    private const string Experiment = """
        name: gated
        title: Gated
        seed: "001"
        reproduces: nothing, a test
        baseline: a
        variants:
          - name: a
          - name: b
            settings: { DataAccess: sync }
        load:
          scenarios:
            - name: present
              url: /weatherforecast-async?ms=20
              expect: { status: 200, json: "$[4].temperatureC" }
              model: closed
              users: 2
            - name: absent
              url: /weatherforecast-async?ms=20
              expect: { json: "$[5].date" }
              model: closed
              users: 2
        profiles:
          article: { warmup: 1s, duration: 2s, repeat: 1 }
          quick: { warmup: 1s, duration: 2s, repeat: 1 }
          smoke: { warmup: 500ms, duration: 1500ms, repeat: 1 }
        thresholds: ["p99<30s", "errors<1%"]
        """;

    [Fact]
    public async Task Run_WithChecksAndThresholds_CountsFailedChecksAndExitsWithThresholdsFailed()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = Path.Combine(Path.GetTempPath(), "perflab-gated-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(folder);
        await File.WriteAllTextAsync(Path.Combine(folder, "gated.yaml"), Experiment);
        var output = folder + "-out";

        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--out", output,
            "--connection-string", db, "--threshold", "p50<5ms");

        Assert.True(result.ExitCode == (int)ExitCode.ThresholdsFailed, result.ToString());
        Assert.Contains("FAIL", result.Stdout);
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(output, "results.json")));
        var experiment = json.RootElement.GetProperty("experiments")[0];
        foreach (var run in experiment.GetProperty("runs").EnumerateArray())
        {
            Assert.Equal("ok", run.GetProperty("status").GetString());
            var scenarios = run.GetProperty("scenarios").EnumerateArray().ToDictionary(s => s.GetProperty("scenario").GetString()!);
            Assert.Equal(0, scenarios["present"].GetProperty("errors").GetInt64());
            var absent = scenarios["absent"];
            Assert.True(absent.GetProperty("requests").GetInt64() > 0);
            Assert.Equal(absent.GetProperty("requests").GetInt64(), absent.GetProperty("errorsByKind").GetProperty("check-json").GetInt64());
        }
        var checks = json.RootElement.GetProperty("thresholds").EnumerateArray()
            .Select(c => (Threshold: c.GetProperty("threshold").GetString(), Scope: c.GetProperty("scope").GetString(), Passed: c.GetProperty("passed").GetBoolean()))
            .ToList();
        // 2 variants x 2 scenarios for each of the file's two thresholds and the command line's one.
        Assert.Equal(12, checks.Count);
        Assert.All(checks.Where(c => c.Threshold == "p99<30s"), c => Assert.True(c.Passed));
        Assert.All(checks.Where(c => c.Threshold == "p50<5ms"), c => Assert.False(c.Passed));
        Assert.All(checks.Where(c => c.Threshold == "errors<1%"), c => Assert.Equal(c.Scope!.EndsWith("/ present", StringComparison.Ordinal), c.Passed));
        Assert.Contains("## Thresholds", await File.ReadAllTextAsync(Path.Combine(output, "report.md")));
    }
}
