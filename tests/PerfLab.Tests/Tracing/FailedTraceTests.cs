using System.Text.Json;

namespace PerfLab.Tests.Tracing;

/// <summary>
/// A trace asked of an app that accepts no diagnostics (Python's http.server: not .NET) fails. The run goes on, and the
/// results and the report name whose trace failed and why, beside the evidence that is missing: before, only the
/// console said so, and the report showed no evidence with no reason.
/// </summary>
public sealed class FailedTraceTests
{
    [Fact]
    public async Task Compare_TraceOfAnAppWithoutDiagnostics_NamedInTheNotesWithWhyAndTheVerdictsStand()
    {
        var output = Path.Combine(TestCaches.NewFolder(), "out");

        var result = await PerfLabProcess.RunAsync("compare", "--command", "python3 -m http.server {port} --bind 127.0.0.1",
            "--url", "/", "--variant", "a", "--variant", "b: X=1", "--profile", "smoke", "--trace", "--out", output);

        Assert.True(result.ExitCode == 0, result.ToString());
        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(output, "results.json")));
        var experiment = json.RootElement.GetProperty("experiments")[0];
        Assert.All(experiment.GetProperty("runs").EnumerateArray(), r => Assert.Equal("ok", r.GetProperty("status").GetString()));
        Assert.Empty(experiment.GetProperty("evidence").EnumerateArray());
        var notes = experiment.GetProperty("notes").EnumerateArray().Select(n => n.GetString()!).ToList();
        var report = await File.ReadAllTextAsync(Path.Combine(output, "report.md"));
        foreach (var variant in new[] { "a", "b" })
        {
            var why = $"the trace of {variant} failed, its verdicts stand without it: Cannot trace process ";
            var note = Assert.Single(notes, n => n.StartsWith(why, StringComparison.Ordinal));
            Assert.Contains("it is not a running .NET process that accepts diagnostics", note, StringComparison.Ordinal);
            Assert.Contains(why, report, StringComparison.Ordinal);
        }
    }
}
