using System.Globalization;
using PerfLab.Cli;
using PerfLab.Counters;

namespace PerfLab.Tests.Counters;

/// <summary>`perflab counters` and `perflab trace collect` taking dotnet-counters' and dotnet-trace's habits.</summary>
public sealed class CountersCommandHabitsTests
{
    // A .NET process that runs until stopped and needs nothing: perflab's own latency proxy, towards a closed port.
    private static string[] ProxyCommand => ["dotnet", PerfLabProcess.CliDll, "proxy", "--target", "127.0.0.1:9", "--rtt", "1ms"];

    [Fact]
    public async Task Collect_ProcessIdAndProviderWithCounters_WritesOnlyThoseCounters()
    {
        await using var sut = await CounterCollectorTests.StartSutAsync();
        var path = Path.Combine(Path.GetTempPath(), $"perflab-counters-{Guid.NewGuid():N}.csv");
        try
        {
            var result = await PerfLabProcess.RunAsync("counters", "collect", "-p", sut.Pid.ToString(CultureInfo.InvariantCulture), "-d", "3s",
                "--refresh-interval", "1", "--counters", "System.Runtime[cpu-usage,working-set]", "-o", path);

            Assert.True(result.ExitCode == 0, result.ToString());
            var lines = await File.ReadAllLinesAsync(path);
            Assert.Equal("unix_seconds,utc,cpu-usage,working-set", lines[0]);
            Assert.InRange(lines.Length - 1, 2, 4);
            // working-set is in MB: a running SUT holds tens of them.
            Assert.All(lines.Skip(1), l => Assert.InRange(double.Parse(l.Split(',')[3], CultureInfo.InvariantCulture), 10, 10_000));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task Collect_DashDashCommand_LaunchesReadsAndStopsIt()
    {
        var path = Path.Combine(Path.GetTempPath(), $"perflab-counters-{Guid.NewGuid():N}.json");
        try
        {
            string[] args = ["counters", "collect", "-d", "2s", "--counters", "System.Runtime[working-set]", "-o", path, "--", .. ProxyCommand];
            var result = await PerfLabProcess.RunAsync(args);

            Assert.True(result.ExitCode == 0, result.ToString());
            Assert.Contains("\"working-set\"", await File.ReadAllTextAsync(path), StringComparison.Ordinal);
            var pid = int.Parse(System.Text.RegularExpressions.Regex.Match(result.Stderr, @"collecting counters of (\d+)").Groups[1].Value, CultureInfo.InvariantCulture);
            Assert.False(DotnetProcesses.IsAlive(pid), "the launched process was left running");
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task TraceCollect_DashDashCommand_WritesATraceOfTheLaunchedApp()
    {
        var path = Path.Combine(Path.GetTempPath(), $"perflab-trace-{Guid.NewGuid():N}.nettrace");
        try
        {
            string[] args = ["trace", "collect", "-d", "2s", "-o", path, "--", .. ProxyCommand];
            var result = await PerfLabProcess.RunAsync(args);

            Assert.True(result.ExitCode == 0, result.ToString());
            Assert.True(new FileInfo(path).Length > 1024, "the trace is nearly empty");
            Assert.Matches(@"tracing \d+ \(dotnet\)|tracing \d+ \(perflab\)", result.Stderr);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Theory]
    [InlineData(new[] { "counters", "collect", "-n", "no-such-dotnet-app-for-perflab", "-d", "1s" }, 4, "no .NET process named 'no-such-dotnet-app-for-perflab'")]
    [InlineData(new[] { "counters", "collect", "1", "-p", "1", "-d", "1s" }, 2, "name the process once")]
    [InlineData(new[] { "trace", "collect", "-d", "1s" }, 2, "name the process once")]
    [InlineData(new[] { "counters", "monitor", "-p", "1", "--counters", "System.Runtime[no-such-counter]" }, 2, "System.Runtime has no counter 'no-such-counter'")]
    [InlineData(new[] { "counters", "collect", "-p", "1", "--source", "Meter2" }, 2, "Meter2")]
    [InlineData(new[] { "load", "http://127.0.0.1:9/", "-t", "2" }, 2, "-t/--threads is wrk's thread count; perflab load has none")]
    [InlineData(new[] { "load", "http://127.0.0.1:9/", "--timeout", "2" }, 2, "--timeout: '2' needs a unit")]
    public async Task Verb_MistakenTarget_SaysWhatToWrite(string[] args, int exitCode, string message)
    {
        var result = await PerfLabProcess.RunAsync(args);

        Assert.True(result.ExitCode == exitCode, result.ToString());
        Assert.Contains(message, result.Stderr, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("System.Runtime", 0)]
    [InlineData("System.Runtime[cpu-usage, working-set],Npgsql", 2)]
    [InlineData("system.runtime[threadpool-queue-length] microsoft.aspnetcore.hosting", 1)]
    public void Parse_ProviderLists_AsDotnetCountersWritesThem(string text, int narrowedRuntimeCounters)
    {
        var selection = CounterSelection.Parse(text, out var error);

        Assert.Null(error);
        Assert.Equal("System.Runtime", selection!.Providers[0]);
        Assert.Equal(narrowedRuntimeCounters, selection.Only?.Count(n => CounterCatalog.Of(["System.Runtime"]).Any(d => d.Name == n)) ?? 0);
    }
}
