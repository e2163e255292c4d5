using System.Text.Json;
using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>
/// A traced first block leaves its traces to the second (`perflab run`, the real SUT and PostgreSQL, alternating blocks
/// of two): they are taken while the second block's SUTs start, before its slots, and still name a known cause, a lock
/// held 2 ms by every request of one variant.
/// </summary>
public sealed class LeftTracesTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private const string Experiment = """
        name: locked
        title: A lock around slow work
        seed: "004"
        reproduces: nothing, a test
        baseline: short
        variants:
          - name: short
            vars: { ms: "0" }
          - name: long
            vars: { ms: "2" }
        load:
          scenarios:
            - name: lock
              url: /diagnostics/lock?ms=${ms}
              model: closed
              users: 8
        profiles:
          quick: { warmup: 1s, duration: 2s, slots: 2, repeat: 2 }
          smoke: { warmup: 1s, duration: 2s, repeat: 1 }
          article: { warmup: 1s, duration: 2s, repeat: 1 }
        """;

    [Fact]
    public async Task Run_TwoAlternatingBlocks_FirstBlocksTracesTakenBesideTheSecondsStartBeforeItsSlots()
    {
        var db = await postgres.CreateDatabaseAsync();
        var folder = Path.Combine(Path.GetTempPath(), "perflab-left-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(folder);
        await File.WriteAllTextAsync(Path.Combine(folder, "locked.yaml"), Experiment);
        var output = folder + "-out";

        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "quick", "--trace",
            "--out", output, "--connection-string", db);

        Assert.True(result.ExitCode == (int)ExitCode.Success, result.ToString());
        var lines = result.Stdout.Split('\n');
        int Index(Func<string, bool> match, int from = 0) =>
            Array.FindIndex(lines, from, l => match(l)) is var i and >= 0 ? i : throw new Xunit.Sdk.XunitException(
                "expected line missing in:\n" + result.Stdout);
        var firstSlots = Index(l => l.Contains("slots taken in"));
        var secondStarts = Index(l => l.Contains("(repetition 2/2)"));
        var longTraced = Index(l => l.TrimStart().StartsWith("traced ", StringComparison.Ordinal), Index(l => l.Contains("tracing long")));
        var secondSlots = Index(l => l.Contains("slots taken in"), firstSlots + 1);
        // Block 1 measured, then block 2's SUTs started, and block 1's traces ended before block 2's slots did.
        Assert.True(firstSlots < secondStarts && secondStarts < longTraced && longTraced < secondSlots, result.Stdout);

        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(output, "results.json")));
        var experiment = json.RootElement.GetProperty("experiments")[0];
        Assert.Equal(4, experiment.GetProperty("runs").EnumerateArray().Count(r => r.GetProperty("status").GetString() == "ok"));
        var evidence = experiment.GetProperty("evidence").EnumerateArray().ToDictionary(e => e.GetProperty("variant").GetString()!);
        Assert.Equal(["short", "long"], evidence.Keys);
        // As RunCommandTests reads a trace taken alone: at least half a 2 ms hold blocked per request, far above short's.
        var longBlocked = evidence["long"].GetProperty("lockBlockedMsPerRequest").GetDouble();
        var shortBlocked = evidence["short"].GetProperty("lockBlockedMsPerRequest").GetDouble();
        Assert.True(longBlocked > 1 && longBlocked > 3 * shortBlocked, $"long {longBlocked} ms, short {shortBlocked} ms");
    }
}
