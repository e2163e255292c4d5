using System.Text.Json;
using PerfLab.Common;

namespace PerfLab.Tests.Apps;

/// <summary>`perflab run` on an app of one's own (samples/TinyShop), end to end: real builds, real Kestrel, real EventPipe.</summary>
[Collection(CpuHeavy.A)]
public sealed class AppRunTests(TinyShopBuild tinyShop)
{
    private static string NewFolder() => Path.Combine(Path.GetTempPath(), "perflab-app-" + Guid.NewGuid().ToString("N")[..12]);

    private static IEnumerable<JsonElement> Runs(JsonDocument json, string experiment, string variant) =>
        json.RootElement.GetProperty("experiments").EnumerateArray().Single(e => e.GetProperty("name").GetString() == experiment)
            .GetProperty("runs").EnumerateArray().Where(r => r.GetProperty("variant").GetString() == variant);

    private static double ReportRps(JsonElement run) =>
        run.GetProperty("scenarios").EnumerateArray().Single(s => s.GetProperty("scenario").GetString() == "report").GetProperty("rps").GetDouble();

    [Fact]
    public async Task Run_TinyShopCachingSample_MeasuresBothVariantsTheComputedReportIsSlowerAndTheTraceNamesItsOwnCode()
    {
        // Three blocks or more, shared with CiOutputRunTests' --json test: the assertions below read the first block, as the
        // one-block run they were written for did, and require every block's runs to have succeeded.
        var (result, output) = await tinyShop.CachingRunAsync();

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
        // No PostgreSQL for an app of one's own.
        Assert.StartsWith("none", json.RootElement.GetProperty("provenance").GetProperty("database").GetString(), StringComparison.Ordinal);
        Assert.All(Runs(json, "caching", "computed").Concat(Runs(json, "caching", "cached")),
            r => Assert.Equal("ok", r.GetProperty("status").GetString()));
        var computed = FirstBlock(Runs(json, "caching", "computed"));
        var cached = FirstBlock(Runs(json, "caching", "cached"));
        // Uncached, every /report aggregates 5,000 orders; cached it serializes a kept summary: several times faster.
        Assert.True(ReportRps(computed) * 2 < ReportRps(cached), $"computed {ReportRps(computed):F0} RPS, cached {ReportRps(cached):F0} RPS");
        Assert.Contains(cached.GetProperty("unconfirmed").EnumerateArray(), u => u.GetString()!.StartsWith("configuration Report:Cache=true (passed as --Report:Cache=true", StringComparison.Ordinal));
        Assert.True(computed.GetProperty("counters").EnumerateObject().Any(), "the app's runtime counters were read over EventPipe");
        // The trace (after the measured window): /report's aggregation runs in TinyShop.SalesReport, the app's own
        // code, found by the app's module (its namespace is TinyShop's, not PerfLab.Sut's), so App is the largest.
        var evidence = json.RootElement.GetProperty("experiments").EnumerateArray().Single().GetProperty("evidence").EnumerateArray()
            .Single(e => e.GetProperty("variant").GetString() == "computed");
        var cpu = evidence.GetProperty("cpuMsPerRequest").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetDouble());
        Assert.True(cpu.MaxBy(p => p.Value).Key == "App", string.Join(", ", cpu.Select(p => $"{p.Key} {p.Value:F3} ms")));
        var report = File.ReadAllText(Path.Combine(output, "report.md"));
        Assert.Contains("### Variants in effect", report, StringComparison.Ordinal);
        Assert.Contains($"- **App:** project {TinyShopBuild.Project}", report, StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(output, "report.html")));
    }

    private static JsonElement FirstBlock(IEnumerable<JsonElement> runs)
    {
        var all = runs.ToList();
        Assert.True(all.Count >= 3, $"{all.Count} blocks");
        return Assert.Single(all, r => r.GetProperty("repetition").GetInt32() == 1);
    }

    [Fact]
    public async Task Run_ServerGcAskedButTheCommandOverridesIt_FailsThatVariantAsNotInEffect()
    {
        var dll = await tinyShop.DllAsync();
        var folder = NewFolder();
        Directory.CreateDirectory(folder);
        // The command's own `env` overrides what the variant asked: the variable the app really gets, and so its GC mode.
        File.WriteAllText(Path.Combine(folder, "overridden.yaml"), Experiment("overridden", $"env DOTNET_gcServer=0 dotnet '{dll}' --urls http://127.0.0.1:{{port}}"));
        // One CPU: the runtime runs workstation GC whatever was asked, though the environment holds the request.
        File.WriteAllText(Path.Combine(folder, "onecpu.yaml"), Experiment("onecpu", $"taskset -c 0 dotnet '{dll}' --urls http://127.0.0.1:{{port}}"));
        var output = Path.Combine(folder, "out");
        try
        {
            var result = await PerfLabProcess.RunAsync(tinyShop.Environment, "run", "--experiments-dir", folder,
                "--profile", "smoke", "--no-trace", "--out", output);

            Assert.True(result.ExitCode == (int)ExitCode.Failed, result.ToString());
            using var json = JsonDocument.Parse(File.ReadAllText(Path.Combine(output, "results.json")));
            var workstation = Assert.Single(Runs(json, "overridden", "workstation"));
            Assert.Equal("ok", workstation.GetProperty("status").GetString());
            Assert.Contains(workstation.GetProperty("confirmed").EnumerateArray(), c => c.GetString() == "workstation GC (no '.NET Server GC' thread)");

            var overridden = Assert.Single(Runs(json, "overridden", "server"));
            Assert.Equal("variantNotInEffect", overridden.GetProperty("failureKind").GetString());
            var reason = overridden.GetProperty("failureReason").GetString()!;
            Assert.Contains("DOTNET_gcServer: asked 1, the process's environment has 0", reason, StringComparison.Ordinal);
            Assert.Contains("asked server, observed workstation", reason, StringComparison.Ordinal);

            var oneCpu = Assert.Single(Runs(json, "onecpu", "server"));
            Assert.Equal("variantNotInEffect", oneCpu.GetProperty("failureKind").GetString());
            Assert.Equal("the variant did not take effect: GC mode (DOTNET_gcServer=1): asked server, observed workstation (no '.NET Server GC' thread)",
                oneCpu.GetProperty("failureReason").GetString());
        }
        finally
        {
            TestCaches.Delete(folder);
        }
    }

    private static string Experiment(string name, string command) => $"""
        name: {name}
        app:
          command: "{command}"
          ready: /healthz
        baseline: workstation
        variants:
          - name: workstation
            env: {"{"} DOTNET_gcServer: "0" {"}"}
          - name: server
            env: {"{"} DOTNET_gcServer: "1" {"}"}
        load:
          scenarios:
            - {"{"} name: product, url: /products/7, model: closed, users: 2 {"}"}
        profiles:
          article: {"{"} warmup: 500ms, duration: 1s, repeat: 1 {"}"}
          quick: {"{"} warmup: 500ms, duration: 1s, repeat: 1 {"}"}
          smoke: {"{"} warmup: 500ms, duration: 1s, repeat: 1 {"}"}
        """;
}
