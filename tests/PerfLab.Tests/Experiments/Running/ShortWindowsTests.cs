using System.Text.Json;
using PerfLab.Testing;

namespace PerfLab.Tests.Experiments.Running;

/// <summary>Short alternation end to end: `perflab run` of a real block, two SUTs taking turns in 250 ms windows.</summary>
public sealed class ShortWindowsTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private const string Spinning = """
        name: spin
        title: Two known CPU costs taking turns in short windows
        seed: "001"
        reproduces: nothing, a test
        baseline: one
        decide: cost
        variants:
          - name: one
            settings: { ExtraWorkMicroseconds: 1000 }
          - name: three
            settings: { ExtraWorkMicroseconds: 3000 }
        load:
          scenarios:
            - name: forecast
              url: /weatherforecast-async?ms=0
              model: closed
              users: 4
        profiles:
          article: { warmup: 1s, duration: 3s, repeat: 1 }
          quick: { warmup: 1s, duration: 3s, repeat: 1 }
          smoke: { warmup: 1s, duration: 3s, window: 250ms, repeat: 1 }
        claims:
          - text: three costs more
            variant: three
            metric: cpu-per-request
            seedFigure: "1 -> 3"
            seedChange: 200
        """;

    [Fact]
    public async Task Run_Window250ms_EachVariantMeasuredInTwelveWindowsOfItsOwnCost()
    {
        // Known inputs: every request spins 1 ms or 3 ms on its thread's CPU clock. 3 s in 250 ms windows is 12 windows a
        // variant, taken in turns on held load; if a window's CPU or requests went to the other SUT, or the windows
        // missed what ran between them, the two costs would not lie 2 ms apart.
        var db = await postgres.CreateDatabaseAsync();
        var folder = Path.Combine(Path.GetTempPath(), "perflab-short-" + Guid.NewGuid().ToString("N")[..12]);
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "spin.yaml"), Spinning);
        var output = Path.Combine(folder, "out");

        var result = await PerfLabProcess.RunAsync("run", "--experiments-dir", folder, "--profile", "smoke", "--out", output,
            "--connection-string", db, "--no-trace");

        Assert.True(result.ExitCode == 0, result.ToString());
        Assert.Contains("measuring 12 windows of 250 ms each, taking turns on held load", result.Stdout);
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        var runs = json.RootElement.GetProperty("experiments")[0].GetProperty("runs").EnumerateArray()
            .ToDictionary(r => r.GetProperty("variant").GetString()!, r => r.GetProperty("cost"));
        foreach (var cost in runs.Values)
        {
            var windows = cost.GetProperty("windows").EnumerateArray().ToList();
            Assert.Equal(12, windows.Count);
            // A window lasts its 250 ms at least (a stall lengthens it, and it is measured as it was).
            Assert.All(windows, w => Assert.True(w.GetProperty("seconds").GetDouble() >= 0.245, w.ToString()));
            Assert.True(windows.Count(w => w.GetProperty("requests").GetInt64() > 0) >= 10, cost.ToString());
        }
        double Ms(string variant) => runs[variant].GetProperty("msPerRequest").GetDouble();
        // On top of the spin: Kestrel's own work per request, and the runtime's work per second (timers, counters, the
        // pool's threads), which a variant serving a third of the requests pays three times per request. Both grow with
        // the machine's load: 1.9 and 4.9 ms read at a load average of 80. Windows mixed between the SUTs would bring
        // the two costs together, not 2 ms or more apart.
        Assert.InRange(Ms("one"), 1.0, 3.0);
        Assert.InRange(Ms("three") - Ms("one"), 1.7, 4.5);
    }
}
